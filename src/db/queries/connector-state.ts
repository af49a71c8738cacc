/**
 * The connectors' shared state (`connectors/shared-state.ts`) in the `connector_state` table, so
 * every instance on one database sees the same Daraja token and the same pauses. Values are
 * encrypted at rest (AES-256-GCM, the webhook secrets' key: `WEBHOOK_ENCRYPTION_KEY`), since
 * some are bearer tokens; a value that no longer opens (the key changed) reads as absent.
 * Expiry is compared with the injected clock, never the database's.
 */
import { and, eq, gt, lte, sql } from 'drizzle-orm';
import type { SharedState } from '../../connectors/shared-state.ts';
import type { Clock } from '../../domain/clock.ts';
import type { SecretBox } from '../../webhooks/secret-box.ts';
import type { Db } from '../client.ts';
import { connectorState } from '../schema-operations.ts';

/** Rows expired longer ago than this are removed when a value is written. */
const PURGE_AFTER_MS = 24 * 3600_000;
/** At most this many expired rows removed per write (a bound, not a sweep). */
const PURGE_BATCH = 100;

/** A `SharedState` over `db`, sealing values with `box`, expiring them by `clock`. */
export function createConnectorStateStore(db: Db, box: Pick<SecretBox, 'seal' | 'open'>, clock: Clock): SharedState {
  const open = (cipherText: string): string | null => {
    try {
      return box.open(cipherText);
    } catch {
      return null;
    }
  };
  const purge = async (now: Date) => {
    const before = new Date(now.getTime() - PURGE_AFTER_MS);
    await db.execute(
      sql`delete from connector_state where key in (select key from connector_state where expires_at < ${before.toISOString()}::timestamptz limit ${PURGE_BATCH})`,
    );
  };
  return {
    async get(key) {
      const [row] = await db
        .select({ value: connectorState.value })
        .from(connectorState)
        .where(and(eq(connectorState.key, key), gt(connectorState.expiresAt, clock.now())))
        .limit(1);
      return row ? open(row.value) : null;
    },

    async put(key, value, expiresAt) {
      const now = clock.now();
      const values = { key, value: box.seal(value), expiresAt, updatedAt: now };
      await db.insert(connectorState).values(values).onConflictDoUpdate({ target: connectorState.key, set: { value: values.value, expiresAt, updatedAt: now } });
      await purge(now);
    },

    async claim(key, value, expiresAt) {
      const now = clock.now();
      const sealed = box.seal(value);
      // One statement: the insert, or the update of an expired row only. PostgreSQL's
      // ON CONFLICT serialises concurrent claimers on the row: exactly one gets it back.
      const taken = await db
        .insert(connectorState)
        .values({ key, value: sealed, expiresAt, updatedAt: now })
        .onConflictDoUpdate({ target: connectorState.key, set: { value: sealed, expiresAt, updatedAt: now }, setWhere: lte(connectorState.expiresAt, now) })
        .returning({ key: connectorState.key });
      return taken.length === 1;
    },

    async release(key, value) {
      const [row] = await db.select({ value: connectorState.value }).from(connectorState).where(eq(connectorState.key, key)).limit(1);
      if (!row || open(row.value) !== value) return;
      // Compare-and-delete on the ciphertext read: a newer holder's row is left alone.
      await db.delete(connectorState).where(and(eq(connectorState.key, key), eq(connectorState.value, row.value)));
    },
  };
}
