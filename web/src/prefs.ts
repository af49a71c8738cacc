/**
 * Display choices remembered in this browser's storage: TEST or LIVE per account, and the
 * language picked on the login screens (an account's own language is kept by the API).
 * Choices only: no token or personal data is stored (tokens: api/client.ts).
 */
import type { Language } from './i18n/messages';

export type Environment = 'TEST' | 'LIVE';

/** Display choices. */
export interface Prefs {
  language?: Language;
  environment?: Environment;
}

const LAST = 'kolo.prefs.last';

/** The choices of `accountId` (or of the last user of this browser when null). */
export function readPrefs(accountId: string | null): Prefs {
  try {
    const raw = localStorage.getItem(accountId ? `kolo.prefs.${accountId}` : LAST);
    return raw ? (JSON.parse(raw) as Prefs) : {};
  } catch {
    return {};
  }
}

/** Merges `change` into the choices of `accountId`. */
export function writePrefs(accountId: string | null, change: Prefs): void {
  try {
    const next = { ...readPrefs(accountId), ...change };
    if (accountId) localStorage.setItem(`kolo.prefs.${accountId}`, JSON.stringify(next));
    localStorage.setItem(LAST, JSON.stringify({ ...readPrefs(null), ...change }));
  } catch {
    // Storage refused (private mode): the choice lasts for this page only.
  }
}
