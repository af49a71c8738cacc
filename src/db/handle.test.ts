/**
 * Transactions opened by `transaction` on a real database (PGlite in memory, or PostgreSQL with
 * TEST_DATABASE_URL): what `work` writes, through Drizzle or through hand-written statements
 * (generic-plan ones included), is committed together or not at all; a nested transaction is a
 * savepoint; a failed transaction gives its pool connection back.
 */
import { eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectionOf, transaction } from './handle.ts';
import { connectorState } from './schema-operations.ts';
import { runStatement, statement } from './statement.ts';
import { useTestDatabase } from '../../test/helpers/test-database.ts';

const testDatabase = useTestDatabase('kolo_handle');

const insertState = statement('test_handle_insert_state_v1', `insert into connector_state (key, value, expires_at, updated_at) values ($1, $2, now(), now())`);
const readState = statement('test_handle_read_state_v1', `select value from connector_state where key = $1`, { genericPlan: true });

async function keysLike(prefix: string): Promise<string[]> {
  const rows = await testDatabase().db.select({ key: connectorState.key }).from(connectorState).where(like(connectorState.key, `${prefix}%`)).orderBy(connectorState.key);
  return rows.map((r) => r.key);
}

describe('transaction', () => {
  it('commits the Drizzle queries and the statements of a transaction that resolves, and returns its result', async () => {
    const result = await transaction(testDatabase().db, async (tx) => {
      await tx.insert(connectorState).values({ key: 'commit:a', value: 'A', expiresAt: new Date(), updatedAt: new Date() });
      await runStatement(tx, insertState, ['commit:b', 'B']);
      // A generic-plan statement in a transaction runs on the transaction's connection: it sees the uncommitted row.
      const seen = await runStatement<{ value: string }>(tx, readState, ['commit:a']);
      return seen.rows.map((r) => r.value);
    });
    expect(result).toEqual(['A']);
    expect(await keysLike('commit:')).toEqual(['commit:a', 'commit:b']);
  });

  it('rolls back everything of a transaction that throws, and rethrows its error', async () => {
    const failure = new Error('refused by the use case');
    await expect(
      transaction(testDatabase().db, async (tx) => {
        await tx.insert(connectorState).values({ key: 'rollback:a', value: 'A', expiresAt: new Date(), updatedAt: new Date() });
        await runStatement(tx, insertState, ['rollback:b', 'B']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await keysLike('rollback:')).toEqual([]);
  });

  it('rolls back a database error (a unique violation) and leaves the earlier rows alone', async () => {
    await runStatement(testDatabase().db, insertState, ['unique:a', 'first']);
    await expect(
      transaction(testDatabase().db, async (tx) => {
        await runStatement(tx, insertState, ['unique:b', 'B']);
        await runStatement(tx, insertState, ['unique:a', 'again']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await keysLike('unique:')).toEqual(['unique:a']);
    const [row] = await testDatabase().db.select().from(connectorState).where(eq(connectorState.key, 'unique:a'));
    expect(row!.value).toBe('first');
  });

  it('makes a nested transaction a savepoint: rolled back alone when it throws, kept when it resolves', async () => {
    await transaction(testDatabase().db, async (tx) => {
      await runStatement(tx, insertState, ['nested:outer', 'O']);
      await expect(
        transaction(tx, async (inner) => {
          await runStatement(inner, insertState, ['nested:failed', 'F']);
          throw new Error('inner refused');
        }),
      ).rejects.toThrow('inner refused');
      await transaction(tx, (inner) => runStatement(inner, insertState, ['nested:kept', 'K']));
    });
    expect(await keysLike('nested:')).toEqual(['nested:kept', 'nested:outer']);
  });

  it('gives its connection back whether it commits or fails: more transactions than the pool has connections all finish', async () => {
    const db = testDatabase().db;
    for (let i = 0; i < 25; i++) {
      await transaction(db, async (tx) => {
        await runStatement(tx, insertState, [`pool:${String(i).padStart(2, '0')}`, 'x']);
        if (i % 2 === 1) throw new Error('odd ones fail');
      }).catch(() => {});
    }
    expect(await keysLike('pool:')).toHaveLength(13);
    const { client } = connectionOf(db);
    if ('totalCount' in client) expect(client.totalCount - client.idleCount).toBe(0);
  });

  it('hands the transaction a handle of its own: no generic-plan pool, batchers apart from the database handle', async () => {
    const db = testDatabase().db;
    await transaction(db, async (tx) => {
      expect(connectionOf(tx).inTransaction).toBe(true);
      expect(connectionOf(tx).genericPlanPool).toBeUndefined();
      expect(connectionOf(tx).kept).not.toBe(connectionOf(db).kept);
      expect(connectionOf(tx).client).not.toBe(connectionOf(db).client);
    });
    expect(connectionOf(db).inTransaction).toBe(false);
    if (testDatabase().kind === 'postgres') expect(connectionOf(db).genericPlanPool).toBeDefined();
  });
});
