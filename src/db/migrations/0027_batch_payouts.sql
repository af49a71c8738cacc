CREATE TABLE "batch_items" (
	"id" uuid PRIMARY KEY NOT NULL,
	"batch_id" uuid NOT NULL,
	"row_number" integer NOT NULL,
	"amount" bigint NOT NULL,
	"fee_amount" bigint NOT NULL,
	"payment_method" text NOT NULL,
	"beneficiary_account" text NOT NULL,
	"beneficiary_name" text NOT NULL,
	"merchant_reference" text,
	"status" text NOT NULL,
	"transaction_id" uuid,
	"failure_reason" text,
	"retry_of" uuid
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"application_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"item_count" integer NOT NULL,
	"total_amount" bigint NOT NULL,
	"fee_amount" bigint NOT NULL,
	"created_by" uuid,
	"approved_by" uuid,
	"closed_by" uuid,
	"idempotency_key" text,
	"request_hash" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"approved_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "batch_auto_approve_below" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_transaction_id_transactions_id_fk" FOREIGN KEY ("transaction_id") REFERENCES "public"."transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "batch_items_batch_row_key" ON "batch_items" USING btree ("batch_id","row_number");--> statement-breakpoint
CREATE INDEX "batch_items_waiting_idx" ON "batch_items" USING btree ("batch_id") WHERE "batch_items"."status" = 'WAITING';--> statement-breakpoint
CREATE UNIQUE INDEX "batches_idempotency_key" ON "batches" USING btree ("application_id","idempotency_key") WHERE "batches"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "batches_application_idx" ON "batches" USING btree ("application_id","created_at");--> statement-breakpoint
CREATE INDEX "batches_open_idx" ON "batches" USING btree ("status") WHERE "batches"."status" in ('AWAITING_APPROVAL', 'APPROVED', 'PROCESSING');