-- GHS amounts are counted in pesewas (hundredths), but MTN_MOMO_GH was seeded with limits written
-- in whole cedis (1 to 20,000), which read as 0.01 to 200 GHS. Limits of 1 to 20,000 GHS, on a
-- rail whose limits an admin has not changed since the seed.
UPDATE "providers" SET "min_amount" = 100, "max_amount" = 2000000, "updated_at" = now()
WHERE "code" = 'MTN_MOMO_GH' AND "min_amount" = 1 AND "max_amount" = 20000;
