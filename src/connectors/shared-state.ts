/**
 * State a connector shares with the other instances of Kolo on the same database: an operator token
 * that every instance must use (Daraja: each new token invalidates the previous one), a pause an
 * operator asked for ("unable to lock subscriber": no new push to that phone for a minute).
 * Connectors never import `db/`: the store is injected (`db/queries/connector-state.ts` keeps it in
 * the `connector_state` table, values encrypted); `createMemorySharedState` serves a single process
 * (`kolo connectors check`).
 */

/** A key → value store with expiry, shared by every instance. Times come from the store's clock. */
export interface SharedState {
  /** The value under `key`, or null when there is none or it has expired. */
  get(key: string): Promise<string | null>;
  /** Sets `key` to `value` until `expiresAt`, replacing any value. */
  put(key: string, value: string, expiresAt: Date): Promise<void>;
  /**
   * Sets `key` to `value` until `expiresAt` only when it holds no unexpired value: a lease. True
   * when this call took it (exactly one of several concurrent callers does).
   */
  claim(key: string, value: string, expiresAt: Date): Promise<boolean>;
  /** Removes `key` when it still holds `value` (ends a lease taken with `claim`). */
  release(key: string, value: string): Promise<void>;
}

/** A `SharedState` in this process's memory, at most `maxEntries` keys (oldest dropped first). */
export function createMemorySharedState(now: () => Date, maxEntries = 10_000): SharedState {
  const entries = new Map<string, { value: string; expiresAtMs: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAtMs > now().getTime()) return entry;
    entries.delete(key);
    return null;
  };
  const set = (key: string, value: string, expiresAt: Date) => {
    entries.delete(key);
    entries.set(key, { value, expiresAtMs: expiresAt.getTime() });
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  };
  return {
    async get(key) {
      return live(key)?.value ?? null;
    },
    async put(key, value, expiresAt) {
      set(key, value, expiresAt);
    },
    async claim(key, value, expiresAt) {
      if (live(key)) return false;
      set(key, value, expiresAt);
      return true;
    },
    async release(key, value) {
      if (entries.get(key)?.value === value) entries.delete(key);
    },
  };
}
