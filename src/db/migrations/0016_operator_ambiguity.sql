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
CREATE INDEX "checkout_attempts_late_watch_idx" ON "checkout_attempts" USING btree ("next_poll_at") WHERE "checkout_attempts"."late_watch_until" is not null;--> statement-breakpoint
CREATE INDEX "checkout_attempts_operator_txn_idx" ON "checkout_attempts" USING btree ("operator_transaction_id") WHERE "checkout_attempts"."operator_transaction_id" is not null;--> statement-breakpoint
-- Checkouts were watched as a whole (their latest attempt failed at its deadline); each such
-- attempt is now watched on its own: the running watches move to every ambiguous attempt.
UPDATE "checkout_attempts" a SET "late_watch_until" = t."late_watch_until", "next_poll_at" = t."next_poll_at"
  FROM "transactions" t
 WHERE a."transaction_id" = t."id" AND t."type" = 'CHECKOUT' AND t."late_watch_until" IS NOT NULL
   AND a."status" = 'FAILED' AND a."failure_code" IN ('TIMEOUT', 'PROVIDER_UNAVAILABLE');--> statement-breakpoint
UPDATE "transactions" SET "late_watch_until" = NULL, "next_poll_at" = NULL
 WHERE "type" = 'CHECKOUT' AND "late_watch_until" IS NOT NULL AND "status" <> 'PENDING';
