CREATE TABLE "event_feed_reads" (
	"application_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"written_by" text NOT NULL,
	"seq" bigint NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	CONSTRAINT "event_feed_reads_application_id_environment_pk" PRIMARY KEY("application_id","environment")
);
--> statement-breakpoint
CREATE TABLE "reconciliation_cases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"case_key" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"rail_code" text NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"transaction_id" uuid,
	"application_id" uuid,
	"operator_transaction_id" text,
	"evidence" jsonb NOT NULL,
	"run_id" uuid NOT NULL,
	"resolution" text,
	"resolution_note" text,
	"resolved_by" uuid,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reconciliation_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"rail_code" text NOT NULL,
	"period_from" timestamp with time zone NOT NULL,
	"period_to" timestamp with time zone NOT NULL,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"operator_records" integer DEFAULT 0 NOT NULL,
	"kolo_transactions" integer DEFAULT 0 NOT NULL,
	"matched" integer DEFAULT 0 NOT NULL,
	"cases_opened" integer DEFAULT 0 NOT NULL,
	"drift" bigint DEFAULT 0 NOT NULL,
	"currency" text,
	"started_by" uuid,
	"error" text,
	"created_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "is_in_reconciliation" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "event_feed_reads" ADD CONSTRAINT "event_feed_reads_application_id_applications_id_fk" FOREIGN KEY ("application_id") REFERENCES "public"."applications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reconciliation_cases_key" ON "reconciliation_cases" USING btree ("case_key");--> statement-breakpoint
CREATE INDEX "reconciliation_cases_open_idx" ON "reconciliation_cases" USING btree ("rail_code","kind") WHERE "reconciliation_cases"."status" = 'OPEN';--> statement-breakpoint
CREATE INDEX "reconciliation_cases_tx_idx" ON "reconciliation_cases" USING btree ("transaction_id") WHERE "reconciliation_cases"."status" = 'OPEN';--> statement-breakpoint
CREATE INDEX "reconciliation_runs_rail_created_idx" ON "reconciliation_runs" USING btree ("rail_code","created_at");