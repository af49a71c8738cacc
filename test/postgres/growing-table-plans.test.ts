/**
 * A statement that every connection runs from the transactions table's first rows on must not keep
 * a plan made for that small table once the table has grown. The initiation records
 * (`record_initiations_v4`) run on every charge from the first one; as a prepared statement, a
 * connection settled on its generic plan (from the sixth execution) while the table held a few
 * rows, a sequential scan, and kept it until autovacuum's next ANALYZE: under the bench's charge
 * run on a fresh database each execution read the whole table again (300–660 rows read per charge,
 * about a quarter of PostgreSQL's CPU). Checked here on one connection (a pool of one), with
 * autovacuum off so that no ANALYZE invalidates a kept plan: after six executions on the empty
 * table and 20,000 rows inserted, an execution reads the rows it updates, not the table. PostgreSQL
 * only (TEST_DATABASE_URL, as in CI).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPayIns, openSeededPostgres, type SeededPostgres } from '../helpers/seeded-postgres.ts';
import { declaredStatements, runStatement } from '../../src/db/statement.ts';
import { initiationRecordValues } from '../../src/db/queries/transactions.ts';
import { transaction } from '../../src/db/client.ts';

let db: SeededPostgres;

beforeAll(async () => {
  db = await openSeededPostgres('kolo_growing_plans', 1);
  await db.client.query('alter table transactions set (autovacuum_enabled = false)');
}, 60_000);

afterAll(async () => {
  await db?.close();
});

/** The parameters of `record_initiations_v4` for the transactions `ids` (answers ACCEPTED). */
function initiationRecords(ids: string[]): unknown[] {
  const recordedAt = new Date();
  return initiationRecordValues(
    ids.map((id, i) => ({ id, operatorReference: `SBX-${i + 1}`, outcome: 'ACCEPTED', redirectUrl: null, inFlightUntil: null, recordedAt, cause: 'INITIATED', detail: {} })),
  );
}

describe('initiation records on a table that grows from empty', () => {
  it('read the rows they update, not the whole table, however small the table was when the connection first ran them', async () => {
    const st = declaredStatements().get('record_initiations_v4');
    if (!st) throw new Error('record_initiations_v4 is not declared');
    const services = db.runtime.services;
    // Six executions on the only connection of the pool while the table is still empty.
    const absent = [services.ids.uuid(), services.ids.uuid()];
    for (let i = 0; i < 6; i++) await runStatement(services.db, st, initiationRecords(absent));

    await insertPayIns(db, 20_000, 'PENDING');
    const batch = (await db.client.query<{ id: string }>(`select id from transactions where reference > 'PI-000000002000' order by reference limit 20`)).rows.map((r) => r.id);
    expect(batch).toHaveLength(20);

    // This transaction's own counters (pg_stat_xact_user_tables), on the same connection.
    const read = await transaction(services.db, async (tx) => {
      const result = await runStatement(tx, st, initiationRecords(batch));
      // node-postgres's result (the runtime is on PostgreSQL here).
      const { rows } = (await tx.execute(sql`select seq_tup_read, idx_tup_fetch from pg_stat_xact_user_tables where relname = 'transactions'`)) as unknown as {
        rows: { seq_tup_read: string; idx_tup_fetch: string }[];
      };
      return { recorded: result.rowCount, sequential: Number(rows[0]!.seq_tup_read), byIndex: Number(rows[0]!.idx_tup_fetch) };
    });
    expect(read.recorded).toBe(20); // one event per updated transaction
    expect(read.sequential).toBeLessThan(1000);
    expect(read.byIndex).toBeGreaterThanOrEqual(20);

    const events = await db.client.query<{ n: number }>(
      `select count(*)::int as n from transaction_events where transaction_id = any($1::uuid[]) and cause = 'INITIATED'`,
      [batch],
    );
    expect(events.rows[0]!.n).toBe(20);
  });
});
