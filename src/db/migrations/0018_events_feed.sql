ALTER TABLE "webhook_events" ADD COLUMN "environment" text;--> statement-breakpoint
UPDATE "webhook_events" e SET "environment" = t."environment" FROM "transactions" t WHERE t."id" = e."transaction_id";--> statement-breakpoint
UPDATE "webhook_events" SET "environment" = 'TEST' WHERE "environment" IS NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ALTER COLUMN "environment" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "seq" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "webhook_events_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
ALTER TABLE "webhook_events" ADD COLUMN "written_by" "xid8" DEFAULT pg_current_xact_id() NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_events_feed_idx" ON "webhook_events" USING btree ("application_id","environment","written_by","seq");
