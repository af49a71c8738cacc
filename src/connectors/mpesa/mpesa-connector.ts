/**
 * M-Pesa Daraja connector: the plumbing (Safaricom Daraja 3.0, https://developer.safaricom.co.ke:
 * Authorization, M-Pesa Express, B2C and TransactionStatus pages). One OAuth bearer token shared by
 * every instance (`mpesa-token.ts`: each new Daraja token invalidates the previous one), refreshed
 * once when an API answers its invalid-token code or HTTP 401, then the request resent. Pay-in is
 * an STK push, which Daraja never deduplicates: it is sent once, and an ambiguous answer is
 * resolved by STK Query (with the CheckoutRequestID, from the answer or from the callback), never
 * by a second push. STK Query is asked no earlier than 20 s after the push, then about every 15 s
 * (`retryAfterMs`), unless Daraja's callback for that push came first. After "unable to lock
 * subscriber" no push goes to that phone for a minute (the pause is shared by every instance).
 * Pay-out is a B2C v3 payment with our reference as `OriginatorConversationID`; its status is a
 * Transaction Status Query naming it by `OriginalConversationID`, whose verdict Daraja posts to the
 * transaction's callback URL under the `ConversationID` returned here as `statusQueryReference`.
 * The wire format lives in `mpesa-transformers.ts`.
 */
import type { Clock } from '../../domain/clock.ts';
import type { MpesaConfig } from './mpesa-config.ts';
import type { BalanceResult, CallbackReading, Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusQuery, StatusResult } from '../connector.ts';
import {
  basicAuth,
  callOperator,
  maskSecret,
  stringField,
  untilAborted,
  type FetchFn,
  type OperatorNotSent,
  type OperatorResponse,
  type OperatorUnreachable,
} from '../operator-http.ts';
import { createMemorySharedState, type SharedState } from '../shared-state.ts';
import { createDarajaTokens, type TokenOutcome } from './mpesa-token.ts';
import {
  accountBalanceAck,
  accountBalanceCall,
  accountBalanceResult,
  b2cCall,
  b2cOriginatorId,
  b2cResult,
  darajaError,
  darajaTokenAnswer,
  isSubscriberLocked,
  readDarajaCallback,
  stkCallbackOf,
  stkPushCall,
  stkPushResult,
  stkQueryCall,
  stkQueryResult,
  transactionStatusAck,
  transactionStatusCall,
  type DarajaCall,
} from './mpesa-transformers.ts';

/** Dependencies of the Daraja connector. */
export interface MpesaOptions {
  config: MpesaConfig;
  fetch: FetchFn;
  clock: Clock;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  /**
   * State shared with the other instances on the database (the token, the pauses after "unable
   * to lock subscriber"); absent: this process's memory only (`kolo connectors check`).
   */
  sharedState?: SharedState;
  /** Optional warning sink (never given secrets). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Safety margin before the token's expiry. */
export const MPESA_TOKEN_MARGIN_MS = 60_000;
/** First STK Query no earlier than this after the push: the payer needs time to answer. */
export const MPESA_STK_FIRST_QUERY_MS = 20_000;
/** Then STK Query about this often while the prompt (1–2 minutes) is open. */
export const MPESA_STK_QUERY_INTERVAL_MS = 15_000;
/**
 * After a Transaction Status Query, the next one no sooner than this: each query replaces the
 * `statusQueryReference` its answer must carry, so asking again before Daraja has answered would
 * make that answer stale.
 */
export const MPESA_TSQ_ANSWER_WAIT_MS = 30_000;
/** No push to a phone within this of "unable to lock subscriber" (Daraja: wait at least a minute). */
export const MPESA_LOCK_PAUSE_MS = 60_000;
/** STK callbacks remembered (their receipt, and that Daraja has answered), oldest dropped first. */
const STK_CALLBACKS_KEPT = 10_000;

/** True when an STK pay-in's stored operator reference is still our own placeholder (no CheckoutRequestID learnt). */
function noCheckoutRequestId(query: Pick<StatusQuery, 'reference' | 'operatorReference'>): boolean {
  return !query.operatorReference || query.operatorReference === query.reference;
}

/** The shared-state key of the pause on pushes to `msisdn`. */
function pauseKey(msisdn: string): string {
  return `mpesa:stk-pause:${msisdn}`;
}

/** Creates the Daraja connector from its configuration. */
export function createMpesaConnector(options: MpesaOptions): Connector {
  const { config, timeoutMs } = options;
  const now = () => options.clock.now();
  const state = options.sharedState ?? createMemorySharedState(now);
  // CheckoutRequestID → what its callback said: STK Query carries no receipt, and a push Daraja
  // has called back about is queried at once, whatever its age.
  const stkCallbacks = new Map<string, { receipt: string | null }>();

  const tokens = createDarajaTokens({
    state,
    appId: `${config.baseUrl} ${config.consumerKey}`,
    now,
    marginMs: MPESA_TOKEN_MARGIN_MS,
    fetchTimeoutMs: timeoutMs,
    warn: options.warn,
    async fetchToken() {
      const answer = await callOperator(
        options.fetch,
        {
          method: 'GET',
          url: `${config.baseUrl}/oauth/v1/generate?grant_type=client_credentials`,
          headers: { Authorization: basicAuth(config.consumerKey, config.consumerSecret) },
        },
        timeoutMs,
      );
      if (answer.kind === 'UNREACHABLE') return answer;
      return darajaTokenAnswer(answer.status, answer.json);
    },
  });

  /**
   * Sends `call` with the bearer token; on its API's invalid-token answer, renews the token once
   * and resends. NOT_SENT when `signal` aborts before the request leaves, or no token could be had.
   */
  async function send(
    call: DarajaCall,
    signal: AbortSignal,
  ): Promise<OperatorResponse | OperatorUnreachable | OperatorNotSent | { kind: 'TOKEN_REFUSED'; error: string }> {
    let token: TokenOutcome | OperatorNotSent = await untilAborted(tokens.current(), signal, 'M-Pesa token');
    for (let attempt = 0; attempt < 2; attempt++) {
      // No token: the request never left.
      if (!('token' in token)) return token.kind === 'UNREACHABLE' ? { kind: 'NOT_SENT', error: token.error } : token;
      const answer = await callOperator(
        options.fetch,
        {
          method: call.method,
          url: `${config.baseUrl}${call.path}`,
          headers: { Authorization: `Bearer ${token.token}`, 'Content-Type': 'application/json' },
          body: call.body,
        },
        timeoutMs,
        signal,
      );
      if (answer.kind !== 'RESPONSE') return answer;
      // An invalid token means the request was not processed: resending it is safe.
      const refused = answer.status === 401 || stringField(answer.json, 'errorCode') === call.invalidTokenCode;
      if (!refused || attempt > 0) return answer;
      token = await untilAborted(tokens.renew(token.token), signal, 'M-Pesa token');
    }
    throw new Error('unreachable: the second pass returns');
  }

  /** Records a minute's pause on pushes to `msisdn` (Daraja could not lock the subscriber). */
  async function pause(msisdn: string): Promise<void> {
    await state.put(pauseKey(msisdn), new Date(now().getTime() + MPESA_LOCK_PAUSE_MS).toISOString(), new Date(now().getTime() + MPESA_LOCK_PAUSE_MS)).catch((error: Error) => {
      options.warn?.({ err: error.message }, 'M-Pesa push pause not recorded');
    });
  }

  /** The end of the pause on pushes to `msisdn`, or null (also when the store cannot be read: Daraja refuses a locked phone itself). */
  async function pausedUntil(msisdn: string): Promise<string | null> {
    return state.get(pauseKey(msisdn)).catch(() => null);
  }

  async function initiateStkPush(request: Parameters<Connector['initiate']>[0], callbackUrl: string, signal: AbortSignal): Promise<InitiateResult> {
    const until = await untilAborted(pausedUntil(request.msisdn), signal, 'M-Pesa push pause');
    if (until !== null && typeof until === 'object') return until;
    if (until) {
      // Nothing is sent: a definite failure is safe.
      return {
        kind: 'FAILED',
        failureCode: 'PROVIDER_UNAVAILABLE',
        failureReason: `M-Pesa: unable to lock subscriber less than a minute ago; no push to this number before ${until}`,
      };
    }
    const answer = await send(stkPushCall(request, config, callbackUrl, now()), signal);
    if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
    if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
    const error = darajaError(answer.json);
    if (error?.errorCode === '500.001.1001' && isSubscriberLocked(error.errorMessage)) await pause(request.msisdn);
    return stkPushResult(answer.status, answer.json);
  }

  async function stkStatus(query: StatusQuery, signal: AbortSignal): Promise<StatusResult> {
    // No CheckoutRequestID: the push's fate is unknown and Daraja cannot be asked by our
    // reference. Never push again: wait for the callback (which names it) or the deadline.
    if (noCheckoutRequestId(query)) return { kind: 'PENDING' };
    const checkoutRequestId = query.operatorReference!;
    const calledBack = stkCallbacks.get(checkoutRequestId);
    const firstQueryAt = query.initiatedAt.getTime() + MPESA_STK_FIRST_QUERY_MS;
    if (!calledBack && now().getTime() < firstQueryAt) return { kind: 'PENDING', retryAfterMs: firstQueryAt - now().getTime() };
    const answer = await send(stkQueryCall(checkoutRequestId, config, now()), signal);
    if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
    if (stringField(answer.json, 'ResultCode') === '1001') await pause(query.msisdn);
    const status = stkQueryResult(answer.status, answer.json, calledBack?.receipt ?? null);
    if (status.kind === 'SUCCEEDED' || status.kind === 'FAILED') stkCallbacks.delete(checkoutRequestId);
    return status.kind === 'PENDING' ? { kind: 'PENDING', retryAfterMs: MPESA_STK_QUERY_INTERVAL_MS } : status;
  }

  return {
    operator: 'MPESA',
    preparesLocally: true,

    async prepare(request): Promise<PrepareResult> {
      // B2C: our reference is the OriginatorConversationID (suffixed for a resend after a refusal
      // for want of float: b2cOriginatorId). STK: Daraja names the push (CheckoutRequestID) only
      // in its answer; until then our reference stands in for it.
      return { kind: 'PREPARED', operatorReference: request.direction === 'PAY_OUT' ? b2cOriginatorId(request) : request.reference };
    },

    async initiate(request, signal): Promise<InitiateResult> {
      if (!request.callbackUrl) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'M-Pesa needs a callback URL' };
      if (request.direction === 'PAY_IN') return initiateStkPush(request, request.callbackUrl, signal);
      const answer = await send(b2cCall(request, config, request.callbackUrl), signal);
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return b2cResult(answer.status, answer.json);
    },

    async getStatus(query, signal): Promise<StatusResult> {
      if (query.direction === 'PAY_IN') return stkStatus(query, signal);
      // B2C: the verdict comes asynchronously to the callback URL, under the ConversationID
      // answered here (readCallback recognises it by `statusQueryReference`).
      if (!query.callbackUrl) return { kind: 'PENDING' };
      const answer = await send(transactionStatusCall(b2cOriginatorId(query), config, query.callbackUrl), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      const status = transactionStatusAck(answer.status, answer.json);
      return status.kind === 'PENDING' ? { ...status, retryAfterMs: MPESA_TSQ_ANSWER_WAIT_MS } : status;
    },

    readCallback(body, query): CallbackReading {
      if (query.direction === 'PAY_IN') {
        const stk = stkCallbackOf(body);
        if (stk) {
          stkCallbacks.delete(stk.checkoutRequestId);
          stkCallbacks.set(stk.checkoutRequestId, { receipt: stk.resultCode === '0' ? stk.receipt : null });
          if (stkCallbacks.size > STK_CALLBACKS_KEPT) stkCallbacks.delete(stkCallbacks.keys().next().value!);
        }
      }
      return readDarajaCallback(body, query);
    },

    async readBalance(signal, resultUrl): Promise<BalanceResult> {
      // Asynchronous: Daraja posts the balance to resultUrl (read by readBalanceResult).
      const answer = await send(accountBalanceCall(config, resultUrl), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNKNOWN', error: answer.error };
      return accountBalanceAck(answer.status, answer.json);
    },

    readBalanceResult(body): BalanceResult {
      return accountBalanceResult(body);
    },

    async check(): Promise<ConnectorCheck[]> {
      const token = await tokens.current();
      const who = `consumer key ${maskSecret(config.consumerKey)}, shortcode ${config.shortCode}, B2C shortcode ${config.b2cShortCode}`;
      return [
        'token' in token
          ? { product: 'MPESA oauth', ok: true, detail: `token obtained (${who})` }
          : { product: 'MPESA oauth', ok: false, detail: `${token.error} (${who})` },
      ];
    },
  };
}
