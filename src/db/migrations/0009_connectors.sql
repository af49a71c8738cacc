ALTER TABLE "transactions" ADD COLUMN "callback_token" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "initiation_outcome" text;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "callback_token" text;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "initiation_outcome" text;--> statement-breakpoint
CREATE UNIQUE INDEX "transactions_callback_token_key" ON "transactions" USING btree ("callback_token");--> statement-breakpoint
CREATE UNIQUE INDEX "checkout_attempts_callback_token_key" ON "checkout_attempts" USING btree ("callback_token");