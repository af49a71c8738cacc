CREATE TABLE "merchant_fee_overrides" (
	"merchant_id" uuid NOT NULL,
	"provider_code" text NOT NULL,
	"direction" text NOT NULL,
	"fee_percentage" numeric(6, 3) NOT NULL,
	"fee_fixed" bigint NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "merchant_fee_overrides_merchant_id_provider_code_direction_pk" PRIMARY KEY("merchant_id","provider_code","direction")
);
--> statement-breakpoint
CREATE TABLE "ledger_accounts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"normal_side" text NOT NULL,
	"is_non_negative" boolean NOT NULL,
	"application_id" uuid,
	"environment" text,
	"balance" bigint NOT NULL,
	"last_delta" bigint NOT NULL,
	"version" bigint NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_accounts_non_negative" CHECK (not "ledger_accounts"."is_non_negative" or "ledger_accounts"."balance" >= 0),
	CONSTRAINT "ledger_accounts_normal_side" CHECK ("ledger_accounts"."normal_side" in ('DEBIT', 'CREDIT'))
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"transaction_id" uuid,
	"currency" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_lines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entry_id" bigint NOT NULL,
	"account_id" bigint NOT NULL,
	"amount" bigint NOT NULL,
	CONSTRAINT "ledger_lines_nonzero" CHECK ("ledger_lines"."amount" <> 0)
);
--> statement-breakpoint
CREATE TABLE "pending_settlements" (
	"transaction_id" uuid PRIMARY KEY NOT NULL,
	"application_id" uuid NOT NULL,
	"environment" text NOT NULL,
	"currency" text NOT NULL,
	"amount" bigint NOT NULL,
	"release_at" timestamp with time zone NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "withdrawal_accounts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"merchant_id" uuid NOT NULL,
	"provider_code" text NOT NULL,
	"account_number" text NOT NULL,
	"account_name" text NOT NULL,
	"is_default" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "withdrawal_configs" (
	"merchant_id" uuid NOT NULL,
	"currency" text NOT NULL,
	"environment" text NOT NULL,
	"mode" text NOT NULL,
	"account_id" uuid,
	"threshold_amount" bigint,
	"period" text,
	"last_period_key" text,
	"last_triggered_at" timestamp with time zone,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "withdrawal_configs_merchant_id_currency_pk" PRIMARY KEY("merchant_id","currency")
);
--> statement-breakpoint
ALTER TABLE "applications" ADD COLUMN "late_success_policy" text DEFAULT 'REFUND' NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "pay_out_fee_percentage" numeric(6, 3) DEFAULT '0' NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "pay_out_fee_fixed" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "settlement_delay_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "fee_amount" bigint;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "reserved_amount" bigint;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "funding_source" text;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "refunded_amount" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "refund_of" uuid;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "is_late_success" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "transactions" ADD COLUMN "late_watch_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "merchant_fee_overrides" ADD CONSTRAINT "merchant_fee_overrides_merchant_id_accounts_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_lines" ADD CONSTRAINT "ledger_lines_entry_id_ledger_entries_id_fk" FOREIGN KEY ("entry_id") REFERENCES "public"."ledger_entries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_lines" ADD CONSTRAINT "ledger_lines_account_id_ledger_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."ledger_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawal_accounts" ADD CONSTRAINT "withdrawal_accounts_merchant_id_accounts_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawal_configs" ADD CONSTRAINT "withdrawal_configs_merchant_id_accounts_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "withdrawal_configs" ADD CONSTRAINT "withdrawal_configs_account_id_withdrawal_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."withdrawal_accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_accounts_key_key" ON "ledger_accounts" USING btree ("key");--> statement-breakpoint
CREATE INDEX "ledger_accounts_app_idx" ON "ledger_accounts" USING btree ("application_id","environment");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_entries_tx_kind_key" ON "ledger_entries" USING btree ("transaction_id","kind") WHERE "ledger_entries"."transaction_id" is not null;--> statement-breakpoint
CREATE INDEX "ledger_lines_entry_idx" ON "ledger_lines" USING btree ("entry_id");--> statement-breakpoint
CREATE INDEX "ledger_lines_account_idx" ON "ledger_lines" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "pending_settlements_due_idx" ON "pending_settlements" USING btree ("release_at") WHERE "pending_settlements"."released_at" is null;--> statement-breakpoint
CREATE INDEX "withdrawal_accounts_merchant_idx" ON "withdrawal_accounts" USING btree ("merchant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawal_accounts_one_default" ON "withdrawal_accounts" USING btree ("merchant_id") WHERE "withdrawal_accounts"."is_default";--> statement-breakpoint
CREATE INDEX "transactions_refund_of_idx" ON "transactions" USING btree ("refund_of") WHERE "transactions"."refund_of" is not null;--> statement-breakpoint
CREATE INDEX "transactions_late_watch_idx" ON "transactions" USING btree ("next_poll_at") WHERE "transactions"."late_watch_until" is not null;--> statement-breakpoint
-- Hand-written (drizzle cannot express it): the journal is append-only.
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the ledger journal is append-only (% on %)', TG_OP, TG_TABLE_NAME;
END;
$$;--> statement-breakpoint
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION ledger_append_only();--> statement-breakpoint
CREATE TRIGGER ledger_lines_append_only BEFORE UPDATE OR DELETE ON ledger_lines FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
