-- A payment's row is updated several times in the seconds after its insert (the initiation's
-- answer, the poller's lease, the settlement). Inserts fill pages to half, so that a row's later
-- versions fit on its own page (docs/performance.md). New pages only; existing ones keep their
-- layout until rewritten (VACUUM FULL or pg_repack).
ALTER TABLE "transactions" SET (fillfactor = 50);
