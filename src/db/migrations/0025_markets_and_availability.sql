-- Rails' customer instructions in French and English, staff overrides of rail availability
-- (rails/availability.ts) and the index it reads attempts by, and the rails of MTN's and
-- Airtel's other markets.
CREATE TABLE "rail_availability_overrides" (
	"provider_code" text NOT NULL,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"set_by" uuid,
	"set_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rail_availability_overrides_provider_code_direction_pk" PRIMARY KEY("provider_code","direction"),
	CONSTRAINT "rail_availability_overrides_status_check" CHECK ("rail_availability_overrides"."status" in ('OPERATIONAL', 'DELAYED', 'CLOSED')),
	CONSTRAINT "rail_availability_overrides_direction_check" CHECK ("rail_availability_overrides"."direction" in ('PAY_IN', 'PAY_OUT'))
);
--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "instructions_fr" text;--> statement-breakpoint
ALTER TABLE "providers" ADD COLUMN "instructions_en" text;--> statement-breakpoint
ALTER TABLE "rail_availability_overrides" ADD CONSTRAINT "rail_availability_overrides_set_by_accounts_id_fk" FOREIGN KEY ("set_by") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "checkout_attempts_created_idx" ON "checkout_attempts" USING btree ("created_at");--> statement-breakpoint
-- Each seeded rail's customer instructions in French and in English (the USSD codes of ussd_hint).
UPDATE "providers" SET "instructions_fr" = v.fr, "instructions_en" = v.en FROM (VALUES
('MTN_MOMO_CM', 'Composez *126# pour valider le paiement', 'Dial *126# to approve the payment'),
('ORANGE_MONEY_CM', 'Composez #150*50# pour valider le paiement', 'Dial #150*50# to approve the payment'),
('MTN_MOMO_CI', 'Composez *133# pour valider le paiement', 'Dial *133# to approve the payment'),
('ORANGE_MONEY_CI', 'Composez #144*82# pour valider le paiement', 'Dial #144*82# to approve the payment'),
('WAVE_CI', 'Validez le paiement dans l''application Wave', 'Approve the payment in the Wave app'),
('WAVE_SN', 'Validez le paiement dans l''application Wave', 'Approve the payment in the Wave app'),
('ORANGE_MONEY_SN', 'Composez #144# pour valider le paiement', 'Dial #144# to approve the payment'),
('MTN_MOMO_GH', 'Composez *170# pour valider le paiement', 'Dial *170# to approve the payment'),
('AIRTEL_MONEY_UG', 'Composez *185# pour valider le paiement', 'Dial *185# to approve the payment'),
('MTN_MOMO_UG', 'Composez *165# pour valider le paiement', 'Dial *165# to approve the payment'),
('MPESA_KE', 'Saisissez votre code PIN M-Pesa dans la fenêtre qui s''affiche', 'Enter your M-Pesa PIN on the prompt'),
('AIRTEL_MONEY_KE', 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Enter your Airtel Money PIN on the prompt'),
('MOOV_MONEY_BJ', 'Composez *855# pour valider le paiement', 'Dial *855# to approve the payment'),
('MTN_MOMO_BJ', 'Composez *880# pour valider le paiement', 'Dial *880# to approve the payment')
) AS v(code, fr, en) WHERE "providers"."code" = v.code;
--> statement-breakpoint
-- MTN MoMo's other markets (connectors/mtn-momo/mtn-markets.ts). Limits are in each currency's
-- base unit (ZMW, SZL and ZAR in hundredths; GNF has none) and are starting values for staff to
-- adjust. Congo is seeded inactive: the hosted checkout offers every active rail of a currency, so
-- an active Congolese XAF rail would be offered to Cameroonian payers; staff activate it for a
-- deployment that serves Congo.
INSERT INTO "providers" ("id", "code", "name", "operator", "type", "country", "currency", "min_amount", "max_amount", "fee_percentage", "fee_fixed", "ussd_hint", "instructions_fr", "instructions_en", "pending_timeout_seconds", "active", "created_at", "updated_at") VALUES
('0b6c1f7e-0001-4000-8000-00000000000f', 'MTN_MOMO_CG', 'MTN Mobile Money Congo', 'MTN_MOMO', 'MOBILE_MONEY', 'CG', 'XAF', 100, 1000000, 1.500, 0, 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Enter your MoMo PIN on the prompt', 900, false, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000010', 'MTN_MOMO_ZM', 'MTN Mobile Money Zambia', 'MTN_MOMO', 'MOBILE_MONEY', 'ZM', 'ZMW', 100, 1000000, 1.500, 0, 'Enter your MoMo PIN on the prompt', 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Enter your MoMo PIN on the prompt', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000011', 'MTN_MOMO_GN', 'MTN Mobile Money Guinée', 'MTN_MOMO', 'MOBILE_MONEY', 'GN', 'GNF', 1000, 10000000, 1.500, 0, 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Enter your MoMo PIN on the prompt', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000012', 'MTN_MOMO_SZ', 'MTN Mobile Money Eswatini', 'MTN_MOMO', 'MOBILE_MONEY', 'SZ', 'SZL', 100, 1000000, 1.500, 0, 'Enter your MoMo PIN on the prompt', 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Enter your MoMo PIN on the prompt', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000013', 'MTN_MOMO_ZA', 'MTN Mobile Money South Africa', 'MTN_MOMO', 'MOBILE_MONEY', 'ZA', 'ZAR', 100, 1000000, 1.500, 0, 'Enter your MoMo PIN on the prompt', 'Saisissez votre code PIN MoMo dans la fenêtre qui s''affiche', 'Enter your MoMo PIN on the prompt', 900, true, now(), now())
ON CONFLICT ("code") DO NOTHING;
--> statement-breakpoint
-- Airtel Money's XAF markets (connectors/airtel-money). Seeded inactive for the same reason as
-- MTN_MOMO_CG: the hosted checkout offers every active rail of a currency.
INSERT INTO "providers" ("id", "code", "name", "operator", "type", "country", "currency", "min_amount", "max_amount", "fee_percentage", "fee_fixed", "ussd_hint", "instructions_fr", "instructions_en", "pending_timeout_seconds", "active", "created_at", "updated_at") VALUES
('0b6c1f7e-0001-4000-8000-000000000014', 'AIRTEL_MONEY_CG', 'Airtel Money Congo', 'AIRTEL_MONEY', 'MOBILE_MONEY', 'CG', 'XAF', 100, 1000000, 1.500, 0, 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Enter your Airtel Money PIN on the prompt', 900, false, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000015', 'AIRTEL_MONEY_GA', 'Airtel Money Gabon', 'AIRTEL_MONEY', 'MOBILE_MONEY', 'GA', 'XAF', 100, 1000000, 1.500, 0, 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Enter your Airtel Money PIN on the prompt', 900, false, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000016', 'AIRTEL_MONEY_TD', 'Airtel Money Tchad', 'AIRTEL_MONEY', 'MOBILE_MONEY', 'TD', 'XAF', 100, 1000000, 1.500, 0, 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Saisissez votre code PIN Airtel Money dans la fenêtre qui s''affiche', 'Enter your Airtel Money PIN on the prompt', 900, false, now(), now())
ON CONFLICT ("code") DO NOTHING;
