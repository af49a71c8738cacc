/**
 * The Daraja bearer token, one for every instance of Kolo on the database. Daraja's Authorization
 * page (FAQ, Daraja 3.0) says each new token invalidates the previous one: instances fetching their
 * own would keep invalidating each other's. So the token lives in the shared state
 * (`connector_state`, encrypted), one instance fetches at a time (a lease), and an instance whose
 * token Daraja refuses first takes the one another instance has stored since, fetching a new one
 * only when the stored one is the refused one.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SharedState } from '../shared-state.ts';
import type { DarajaTokenAnswer } from './mpesa-transformers.ts';

/** A token, or why there is none. */
export type TokenOutcome = { token: string } | { kind: 'TOKEN_REFUSED'; error: string } | { kind: 'UNREACHABLE'; error: string };

/** The shared Daraja token. */
export interface DarajaTokens {
  /** A token believed valid: this process's copy, the shared one, or a new one. */
  current(): Promise<TokenOutcome>;
  /** A token other than `refused` (which Daraja just refused): the shared one if newer, else a new one. */
  renew(refused: string): Promise<TokenOutcome>;
}

/** What the shared token needs. */
export interface DarajaTokenOptions {
  state: SharedState;
  /** Identifies the Daraja app (base URL and consumer key): apps do not share tokens. */
  appId: string;
  now: () => Date;
  /** A token is not used within this margin of its expiry. */
  marginMs: number;
  /** How long a fetch may take: the lease's length, and how long others wait for it. */
  fetchTimeoutMs: number;
  fetchToken: () => Promise<DarajaTokenAnswer>;
  /** Optional warning sink (never given the token). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Pause between two looks at the shared token while another instance holds the lease. */
const WAIT_STEP_MS = 50;
/**
 * How long this process reuses a token read from the store before reading it again (its exact
 * expiry stays in the store, which serves it only until `marginMs` before the end: keep this
 * shorter than `MPESA_TOKEN_MARGIN_MS`).
 */
const SHARED_COPY_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates the shared token of one Daraja app. */
export function createDarajaTokens(options: DarajaTokenOptions): DarajaTokens {
  const app = createHash('sha256').update(options.appId).digest('hex').slice(0, 16);
  const tokenKey = `mpesa:token:${app}`;
  const leaseKey = `mpesa:token-fetch:${app}`;
  let local: { token: string; usableUntilMs: number } | null = null;
  let inFlight: Promise<TokenOutcome> | null = null;

  const adopt = (token: string, usableUntilMs: number): TokenOutcome => {
    local = { token, usableUntilMs };
    return { token };
  };

  /** The shared token unless it is `refused`; null when there is none (or the store failed). */
  const shared = async (refused: string | null): Promise<string | null> => {
    try {
      const token = await options.state.get(tokenKey);
      return token && token !== refused ? token : null;
    } catch (error) {
      options.warn?.({ err: (error as Error).message }, 'M-Pesa shared token unreadable; fetching one');
      return null;
    }
  };

  /** Fetches a new token from Daraja and shares it. */
  const fetchAndShare = async (): Promise<TokenOutcome> => {
    const answer = await options.fetchToken();
    if (!('token' in answer)) return answer;
    const usableUntilMs = options.now().getTime() + answer.expiresInSeconds * 1000 - options.marginMs;
    try {
      await options.state.put(tokenKey, answer.token, new Date(usableUntilMs));
    } catch (error) {
      options.warn?.({ err: (error as Error).message }, 'M-Pesa token not shared');
    }
    return adopt(answer.token, usableUntilMs);
  };

  /** The shared token, or a new one fetched under the lease; bounded by `fetchTimeoutMs` of waiting. */
  const obtain = async (refused: string | null): Promise<TokenOutcome> => {
    const owner = randomUUID();
    const waits = Math.max(1, Math.ceil(options.fetchTimeoutMs / WAIT_STEP_MS));
    for (let i = 0; i < waits; i++) {
      const token = await shared(refused);
      if (token) return adopt(token, options.now().getTime() + SHARED_COPY_MS);
      let leased: boolean;
      try {
        leased = await options.state.claim(leaseKey, owner, new Date(options.now().getTime() + options.fetchTimeoutMs));
      } catch {
        return fetchAndShare();
      }
      if (leased) {
        try {
          // Another instance may have shared one between our look and our lease.
          const again = await shared(refused);
          if (again) return adopt(again, options.now().getTime() + SHARED_COPY_MS);
          return await fetchAndShare();
        } finally {
          await options.state.release(leaseKey, owner).catch(() => undefined);
        }
      }
      await sleep(WAIT_STEP_MS);
    }
    // The lease holder is too slow (or gone): fetch ourselves rather than fail.
    return fetchAndShare();
  };

  const once = (refused: string | null): Promise<TokenOutcome> => {
    if (inFlight) return inFlight;
    inFlight = obtain(refused).finally(() => {
      inFlight = null;
    });
    return inFlight;
  };

  return {
    async current() {
      if (local && local.usableUntilMs > options.now().getTime()) return { token: local.token };
      return once(null);
    },
    async renew(refused) {
      if (local?.token === refused) local = null;
      if (local && local.usableUntilMs > options.now().getTime()) return { token: local.token };
      return once(refused);
    },
  };
}
