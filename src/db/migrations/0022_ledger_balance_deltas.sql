CREATE TABLE "ledger_balance_deltas" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"amount" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger_balance_deltas" ADD CONSTRAINT "ledger_balance_deltas_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "ledger_balance_deltas_account_idx" ON "ledger_balance_deltas" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "ledger_accounts" DROP COLUMN "last_delta";