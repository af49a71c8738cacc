DROP INDEX "transactions_app_created_idx";--> statement-breakpoint
CREATE INDEX "transactions_app_created_id_idx" ON "transactions" USING btree ("application_id","created_at","id");--> statement-breakpoint
CREATE INDEX "transactions_created_idx" ON "transactions" USING btree ("created_at","id");