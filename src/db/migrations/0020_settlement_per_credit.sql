-- A transaction may credit a merchant's PENDING balance more than once (its own success, then a
-- late success kept): one pending settlement per credit, keyed by the credit's ledger entry kind.
ALTER TABLE "pending_settlements" ADD COLUMN "credit_kind" text DEFAULT 'PAYIN_SUCCESS' NOT NULL;--> statement-breakpoint
ALTER TABLE "pending_settlements" DROP CONSTRAINT "pending_settlements_pkey";--> statement-breakpoint
ALTER TABLE "pending_settlements" ADD CONSTRAINT "pending_settlements_transaction_id_credit_kind_pk" PRIMARY KEY("transaction_id","credit_kind");
