ALTER TABLE "transactions" ADD COLUMN "redirect_url" text;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "redirect_url" text;