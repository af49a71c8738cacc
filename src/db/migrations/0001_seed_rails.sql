-- Seed the rails (provider codes: operator + ISO 3166 alpha-2 country). Rails are data: the
-- dashboard's admin API edits them later. Limits are in the currency's base unit.
-- pending_timeout_seconds: how long an unresolved PENDING transaction may wait on this rail.
INSERT INTO "providers" ("id", "code", "name", "operator", "type", "country", "currency", "min_amount", "max_amount", "fee_percentage", "fee_fixed", "ussd_hint", "pending_timeout_seconds", "active", "created_at", "updated_at") VALUES
('0b6c1f7e-0001-4000-8000-000000000001', 'MTN_MOMO_CM', 'MTN Mobile Money Cameroun', 'MTN_MOMO', 'MOBILE_MONEY', 'CM', 'XAF', 100, 1000000, 1.500, 0, 'Composez *126# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000002', 'ORANGE_MONEY_CM', 'Orange Money Cameroun', 'ORANGE_MONEY', 'MOBILE_MONEY', 'CM', 'XAF', 100, 1000000, 1.500, 0, 'Composez #150*50# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000003', 'MTN_MOMO_CI', 'MTN Mobile Money Côte d''Ivoire', 'MTN_MOMO', 'MOBILE_MONEY', 'CI', 'XOF', 100, 1500000, 1.500, 0, 'Composez *133# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000004', 'ORANGE_MONEY_CI', 'Orange Money Côte d''Ivoire', 'ORANGE_MONEY', 'MOBILE_MONEY', 'CI', 'XOF', 100, 1500000, 1.500, 0, 'Composez #144*82# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000005', 'WAVE_CI', 'Wave Côte d''Ivoire', 'WAVE', 'MOBILE_MONEY', 'CI', 'XOF', 100, 1500000, 1.000, 0, 'Validez le paiement dans l''application Wave', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000006', 'WAVE_SN', 'Wave Sénégal', 'WAVE', 'MOBILE_MONEY', 'SN', 'XOF', 100, 1500000, 1.000, 0, 'Validez le paiement dans l''application Wave', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000007', 'ORANGE_MONEY_SN', 'Orange Money Sénégal', 'ORANGE_MONEY', 'MOBILE_MONEY', 'SN', 'XOF', 100, 1500000, 1.500, 0, 'Composez #144# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000008', 'MTN_MOMO_GH', 'MTN Mobile Money Ghana', 'MTN_MOMO', 'MOBILE_MONEY', 'GH', 'GHS', 1, 20000, 1.500, 0, 'Dial *170# to approve the payment', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-000000000009', 'AIRTEL_MONEY_UG', 'Airtel Money Uganda', 'AIRTEL_MONEY', 'MOBILE_MONEY', 'UG', 'UGX', 500, 5000000, 1.500, 0, 'Dial *185# to approve the payment', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-00000000000a', 'MTN_MOMO_UG', 'MTN Mobile Money Uganda', 'MTN_MOMO', 'MOBILE_MONEY', 'UG', 'UGX', 500, 5000000, 1.500, 0, 'Dial *165# to approve the payment', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-00000000000b', 'MPESA_KE', 'M-Pesa Kenya', 'MPESA', 'MOBILE_MONEY', 'KE', 'KES', 1, 250000, 1.500, 0, 'Enter your M-Pesa PIN on the prompt', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-00000000000c', 'AIRTEL_MONEY_KE', 'Airtel Money Kenya', 'AIRTEL_MONEY', 'MOBILE_MONEY', 'KE', 'KES', 10, 150000, 1.500, 0, 'Enter your Airtel Money PIN on the prompt', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-00000000000d', 'MOOV_MONEY_BJ', 'Moov Money Bénin', 'MOOV_MONEY', 'MOBILE_MONEY', 'BJ', 'XOF', 100, 1000000, 1.500, 0, 'Composez *855# pour valider le paiement', 900, true, now(), now()),
('0b6c1f7e-0001-4000-8000-00000000000e', 'MTN_MOMO_BJ', 'MTN Mobile Money Bénin', 'MTN_MOMO', 'MOBILE_MONEY', 'BJ', 'XOF', 100, 1000000, 1.500, 0, 'Composez *880# pour valider le paiement', 900, true, now(), now());
