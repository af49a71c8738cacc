/**
 * Display choices remembered in this browser's storage: TEST or LIVE per account, and the
 * language picked on the login screens (an account's own language is kept by the API).
 * Choices only: no token or personal data is stored (tokens: api/client.ts). The signed-in
 * account's TEST/LIVE, this page's language and the browser's time zone are also copied into the
 * `kolo_prefs` cookie (path /app), so that the server draws the home page as the app would.
 */
import { browserLanguage } from './i18n/i18n';
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
  if (accountId) mirrorPrefs(accountId, change);
}

/** Name of the cookie copy of the choices. */
export const PREFS_COOKIE = 'kolo_prefs';

/**
 * What the app shows `accountId`: the account's language (`profileLanguage`, kept by the API),
 * else this page's (picked on the login screens, else the browser's); TEST/LIVE as last chosen
 * by the account, else in this browser, else TEST.
 */
export function choicesOf(accountId: string, profileLanguage: Language | null): { language: Language; environment: Environment } {
  const own = readPrefs(accountId);
  const last = readPrefs(null);
  return { language: profileLanguage ?? last.language ?? browserLanguage(), environment: own.environment ?? last.environment ?? 'TEST' };
}

/** The browser's time zone (IANA name). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Writes the `kolo_prefs` cookie for `accountId` (URI-encoded JSON: accountId; language, this
 * page's, used when the account has none; environment; timeZone; a year; SameSite=Strict):
 * `change` over the choices in force.
 */
export function mirrorPrefs(accountId: string, change: Prefs = {}): void {
  const choices = { ...choicesOf(accountId, null), ...change };
  const value = encodeURIComponent(JSON.stringify({ accountId, ...choices, timeZone: browserTimeZone() }));
  document.cookie = `${PREFS_COOKIE}=${value}; Path=/app; Max-Age=31536000; SameSite=Strict${location.protocol === 'https:' ? '; Secure' : ''}`;
}
