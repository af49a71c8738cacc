/**
 * The session a page brings with it. When Kolo answers the home page with a live refresh
 * cookie, it renews the session itself (as `POST /api/v1/auth/refresh-token` does) and writes
 * what the app would otherwise ask for in a JSON block (`<script type="application/json">`,
 * data, never executed): the access token, the account, the display choices it drew the page
 * with and, when #root already holds the drawn home screen, the answers of its calls.
 */
import type { DehydratedState } from '@tanstack/react-query';
import type { User } from './auth/session';
import type { Language } from './i18n/messages';
import type { Environment } from './prefs';

/** The id of the JSON block. */
export const BOOTSTRAP_ID = 'kolo-bootstrap';

/** What the page brings. */
export interface Bootstrap {
  /** The access token of the renewed session (kept in memory only, like the one a refresh answers). */
  accessToken: string;
  user: User;
  /** The display choices the server drew the page with; the time zone is an IANA name. */
  language: Language;
  environment: Environment;
  timeZone: string;
  /** The server's time zone (IANA), in which the API's zone-less timestamps are read. */
  serverTimeZone: string;
  /** True when #root holds the home screen as the server drew it. */
  rendered: boolean;
  /** The query cache of the drawn screen (TanStack Query's `dehydrate`), or null. */
  queries: DehydratedState | null;
}

/** Reads the page's block and removes it from the document (null when the page has none). */
export function takeBootstrap(): Bootstrap | null {
  const block = document.getElementById(BOOTSTRAP_ID);
  if (!block) return null;
  block.remove();
  try {
    return JSON.parse(block.textContent ?? '') as Bootstrap;
  } catch {
    return null;
  }
}
