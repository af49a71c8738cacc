ALTER TABLE "api_keys" ADD COLUMN "scopes" text[] DEFAULT '{COLLECT,PAYOUT,REFUND,READ}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" text[];