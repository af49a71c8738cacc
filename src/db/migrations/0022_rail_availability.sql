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
