ALTER TABLE "transactions" ADD COLUMN "in_flight_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "checkout_attempts" ADD COLUMN "in_flight_until" timestamp with time zone;--> statement-breakpoint
-- Initiations whose outcome is still unknown were sent by code that did not stop its connector
-- when it gave up on it: their requests (tokens, MTN's account-holder check, the initiation: at
-- most five calls of at most CONNECTOR_TIMEOUT_MS, 120 s, each) may have left up to 10 minutes
-- after `initiated_at`, then the landing bound (5 minutes) follows; 20 minutes leaves a margin.
-- Only what is still asked about: PENDING, held pay-outs, watched charges and attempts.
UPDATE "transactions" SET "in_flight_until" = "initiated_at" + interval '20 minutes'
 WHERE "initiated_at" IS NOT NULL AND "initiation_outcome" IS DISTINCT FROM 'ACCEPTED'
   AND ("status" = 'PENDING' OR "is_reservation_held" OR "late_watch_until" IS NOT NULL);--> statement-breakpoint
UPDATE "checkout_attempts" SET "in_flight_until" = "initiated_at" + interval '20 minutes'
 WHERE "initiation_outcome" IS DISTINCT FROM 'ACCEPTED' AND ("status" = 'PENDING' OR "late_watch_until" IS NOT NULL);
