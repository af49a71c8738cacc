/**
 * Wave connector: the plumbing (Wave's Checkout, Payout and Webhook APIs, https://docs.wave.com). A
 * static bearer API key per wallet (one wallet per country, separate Checkout and Payout keys), no
 * token endpoint. Pay-in is a redirect: a Checkout session with our reference as
 * `client_reference`, whose `wave_launch_url` the customer opens. Pay-out is `POST /v1/payout` with
 * `idempotency-key` and `client_reference` our reference. Status is `GET` by Wave's id; when the
 * creation's answer was lost (no id stored), the `client_reference` search finds it, and "not
 * found" after an ambiguous creation means it never landed — once none of its requests can still
 * arrive (`StatusQuery.initiation` `UNKNOWN`). Every call stops when the caller's signal aborts.
 * The wire format lives in `wave-transformers.ts`.
 */
import type { WaveWalletConfig } from './wave-config.ts';
import type { BalanceResult, Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusQuery, StatusResult } from '../connector.ts';
import { callOperator, maskSecret, type FetchFn, type OperatorNotSent, type OperatorResponse, type OperatorUnreachable } from '../operator-http.ts';
import {
  checkoutSessionCall,
  waveBalanceCall,
  waveBalanceResult,
  payoutCall,
  waveCreateResult,
  waveGetCall,
  waveGetResult,
  waveSearchCall,
  waveSearchFirst,
  sessionStatus,
  payoutStatus,
  type WaveCall,
} from './wave-transformers.ts';

/** Dependencies of the Wave connector (one per wallet, i.e. per rail). */
export interface WaveOptions {
  baseUrl: string;
  wallet: WaveWalletConfig;
  fetch: FetchFn;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
}

/** True when `query` holds no Wave id yet (our reference stands in for it until creation answers). */
function noWaveId(query: Pick<StatusQuery, 'reference' | 'operatorReference'>): boolean {
  return !query.operatorReference || query.operatorReference === query.reference;
}

/** Creates the Wave connector for one wallet. */
export function createWaveConnector(options: WaveOptions): Connector {
  const { wallet, timeoutMs } = options;

  /** Sends `call` with its API's key; NOT_SENT when `signal` had aborted before it left. */
  function send(call: WaveCall, signal: AbortSignal): Promise<OperatorResponse | OperatorUnreachable | OperatorNotSent> {
    const key = call.api === 'checkout' ? wallet.checkoutApiKey : wallet.payoutApiKey;
    return callOperator(
      options.fetch,
      { method: call.method, url: `${options.baseUrl}${call.path}`, headers: { ...call.headers, Authorization: `Bearer ${key}` }, body: call.body },
      timeoutMs,
      signal,
    );
  }

  return {
    operator: 'WAVE',
    preparesLocally: true,
    payInFlow: 'REDIRECT',

    async prepare(request): Promise<PrepareResult> {
      // Wave names the session/payout only in its answer; our reference (its client_reference)
      // stands in until then and is what the recovery search asks for.
      return { kind: 'PREPARED', operatorReference: request.reference };
    },

    async initiate(request, signal): Promise<InitiateResult> {
      if (request.direction === 'PAY_IN' && !request.returnUrl) {
        return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'Wave needs a return URL (success_url)' };
      }
      const call = request.direction === 'PAY_IN' ? checkoutSessionCall(request, request.returnUrl!) : payoutCall(request);
      const answer = await send(call, signal);
      if (answer.kind !== 'RESPONSE') return answer;
      return waveCreateResult(answer.status, answer.json, request.direction);
    },

    async getStatus(query, signal): Promise<StatusResult> {
      if (!noWaveId(query)) {
        const answer = await send(waveGetCall(query.direction, query.operatorReference!), signal);
        if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
        const status = waveGetResult(answer.status, answer.json, query.direction);
        // Wave named it, so it landed: its 404 is no proof of anything.
        return status.kind === 'NOT_FOUND' && query.initiation !== 'UNKNOWN' ? { kind: 'PENDING' } : status;
      }
      // The creation's answer was lost: find it by our client_reference before anything else.
      const answer = await send(waveSearchCall(query.direction, query.reference), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      if (answer.status !== 200) return { kind: 'UNREACHABLE', error: `Wave search: HTTP ${answer.status}` };
      const found = waveSearchFirst(answer.json, query.reference);
      // Not found proves it never landed only once none of its requests can still arrive.
      if (!found) return query.initiation === 'UNKNOWN' ? { kind: 'NOT_FOUND' } : { kind: 'PENDING' };
      return query.direction === 'PAY_IN' ? sessionStatus(found) : payoutStatus(found);
    },

    async readBalance(signal): Promise<BalanceResult> {
      const answer = await send(waveBalanceCall(), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNKNOWN', error: answer.error };
      return waveBalanceResult(answer.status, answer.json);
    },

    async check(): Promise<ConnectorCheck[]> {
      // Wave has no token endpoint: an authenticated search proves each key.
      const lines: ConnectorCheck[] = [];
      for (const api of ['checkout', 'payout'] as const) {
        const answer = await send(waveSearchCall(api === 'checkout' ? 'PAY_IN' : 'PAY_OUT', 'kolo-connectors-check'), AbortSignal.timeout(timeoutMs));
        const key = api === 'checkout' ? wallet.checkoutApiKey : wallet.payoutApiKey;
        const ok = answer.kind === 'RESPONSE' && answer.status === 200;
        lines.push({
          product: `WAVE_${wallet.country} ${api}`,
          ok,
          detail: `${ok ? 'API key accepted' : answer.kind === 'RESPONSE' ? `HTTP ${answer.status}` : answer.error} (key ${maskSecret(key)})`,
        });
      }
      return lines;
    },
  };
}
