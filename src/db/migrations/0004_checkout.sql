CREATE TABLE "checkout_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"transaction_id" uuid NOT NULL,
	"attempt_number" integer NOT NULL,
	"rail_code" text NOT NULL,
	"msisdn" text NOT NULL,
	"status" text NOT NULL,
	"correlation_id" text NOT NULL,
	"operator_reference" text,
	"initiated_at" timestamp with time zone NOT NULL,
	"deadline_at" timestamp with time zone NOT NULL,
	"next_poll_at" timestamp with time zone,
	"poll_count" integer DEFAULT 0 NOT NULL,
	"failure_code" text,
	"failure_reason" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD CONSTRAINT "checkout_attempts_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_attempts_number_key" ON "checkout_attempts" USING btree ("transaction_id","attempt_number");--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_attempts_one_pending" ON "checkout_attempts" USING btree ("transaction_id") WHERE "checkout_attempts"."status" = 'PENDING';--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_attempts_one_success" ON "checkout_attempts" USING btree ("transaction_id") WHERE "checkout_attempts"."status" = 'SUCCEEDED';--> statement-breakpoint
CREATE INDEX "checkout_attempts_tx_idx" ON "checkout_attempts" USING btree ("transaction_id","created_at");