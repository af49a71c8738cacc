CREATE TABLE "connector_state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "operator_transaction_id" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "is_reservation_held" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "status_query_reference" text;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "operator_transaction_id" text;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "late_watch_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "is_late_success" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "transactions_operator_txn_idx" ON "transactions" USING btree ("operator_transaction_id") WHERE "transactions"."operator_transaction_id" is not null;--> statement-breakpoint
CREATE INDEX "checkout_attempts_late_watch_idx" ON "checkout_attempts" USING btree ("next_poll_at") WHERE "checkout_attempts"."late_watch_until" is not null;