CREATE TABLE "float_rails" (
	"rail_code" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"state_changed_at" timestamp with time zone NOT NULL,
	"short_reported_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "float_readings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rail_code" text NOT NULL,
	"amount" bigint,
	"currency" text,
	"error" text,
	"read_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "statements" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"from_date" date NOT NULL,
	"to_date" date NOT NULL,
	"status" text NOT NULL,
	"csv" text,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"ready_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "float_queued_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "float_resends" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "statements" ADD CONSTRAINT "statements_merchant_id_accounts_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "float_readings_rail_read_idx" ON "float_readings" USING btree ("rail_code","read_at");--> statement-breakpoint
CREATE INDEX "statements_merchant_idx" ON "statements" USING btree ("merchant_id","created_at");--> statement-breakpoint
CREATE INDEX "transactions_float_queue_idx" ON "transactions" USING btree ("payment_method","float_queued_at","id") WHERE "transactions"."float_queued_at" is not null;