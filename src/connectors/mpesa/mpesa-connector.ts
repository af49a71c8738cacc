/**
 * M-Pesa Daraja connector: the plumbing (operators.md §4.1, §4.4). One OAuth bearer token
 * (Basic consumer key:secret), cached until 60 s before `expires_in` (a string), refreshed once
 * when Daraja answers `404.001.03` (or 401). Pay-in is an STK push, which Daraja never
 * deduplicates: it is sent once, and an ambiguous answer is resolved by STK Query (with the
 * CheckoutRequestID, from the answer or from the callback), never by a second push. Pay-out is a
 * B2C v3 payment with our reference as `OriginatorConversationID`; its status is a Transaction
 * Status Query whose verdict Daraja posts to the transaction's callback URL. The wire format
 * lives in `mpesa-transformers.ts`.
 */
import type { Clock } from '../../domain/clock.ts';
import type { MpesaConfig } from '../../config.ts';
import type { CallbackReading, Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusQuery, StatusResult } from '../connector.ts';
import { basicAuth, callOperator, createTokenCache, maskSecret, stringField, type FetchFn, type OperatorResponse } from '../operator-http.ts';
import {
  b2cCall,
  b2cResult,
  readDarajaCallback,
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
  /** Optional warning sink (never given secrets). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Safety margin before the token's expiry. */
export const MPESA_TOKEN_MARGIN_MS = 60_000;

type TokenError = { kind: 'TOKEN_REFUSED'; error: string } | { kind: 'UNREACHABLE'; error: string };

/** True when an STK pay-in's stored operator reference is still our own placeholder (no CheckoutRequestID learnt). */
function noCheckoutRequestId(query: Pick<StatusQuery, 'reference' | 'operatorReference'>): boolean {
  return !query.operatorReference || query.operatorReference === query.reference;
}

/** Creates the Daraja connector from its configuration. */
export function createMpesaConnector(options: MpesaOptions): Connector {
  const { config, timeoutMs } = options;
  const now = () => options.clock.now();

  const tokens = createTokenCache<TokenError>(
    () => now().getTime(),
    MPESA_TOKEN_MARGIN_MS,
    async () => {
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
      const token = stringField(answer.json, 'access_token');
      const expiresIn = Number(stringField(answer.json, 'expires_in'));
      if (answer.status === 200 && token) return { token, expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3599 };
      const detail = `M-Pesa token: HTTP ${answer.status}${stringField(answer.json, 'errorCode') ? ` ${stringField(answer.json, 'errorCode')}` : ''}`;
      return answer.status >= 500 ? { kind: 'UNREACHABLE', error: detail } : { kind: 'TOKEN_REFUSED', error: detail };
    },
  );

  /** Sends `call` with the bearer token; on "invalid access token", refreshes it once and resends. */
  async function send(call: DarajaCall): Promise<OperatorResponse | TokenError> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await tokens.get('daraja', attempt > 0);
      if (!('token' in token)) return token;
      const answer = await callOperator(
        options.fetch,
        {
          method: call.method,
          url: `${config.baseUrl}${call.path}`,
          headers: { Authorization: `Bearer ${token.token}`, 'Content-Type': 'application/json' },
          body: call.body,
        },
        timeoutMs,
      );
      if (answer.kind === 'UNREACHABLE') return answer;
      // An invalid token means the request was not processed: resending it is safe.
      const refused = answer.status === 401 || stringField(answer.json, 'errorCode') === '404.001.03';
      if (refused && attempt === 0) continue;
      return answer;
    }
    throw new Error('unreachable: the loop returns on its second pass');
  }

  return {
    operator: 'MPESA',
    preparesLocally: true,

    async prepare(request): Promise<PrepareResult> {
      // B2C: our reference is the OriginatorConversationID. STK: Daraja names the push
      // (CheckoutRequestID) only in its answer; until then our reference stands in for it.
      return { kind: 'PREPARED', operatorReference: request.reference };
    },

    async initiate(request): Promise<InitiateResult> {
      if (!request.callbackUrl) return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'M-Pesa needs a callback URL' };
      const call =
        request.direction === 'PAY_IN' ? stkPushCall(request, config, request.callbackUrl, now()) : b2cCall(request, config, request.callbackUrl);
      const answer = await send(call);
      if (answer.kind === 'UNREACHABLE') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return request.direction === 'PAY_IN' ? stkPushResult(answer.status, answer.json) : b2cResult(answer.status, answer.json);
    },

    async getStatus(query): Promise<StatusResult> {
      if (query.direction === 'PAY_IN') {
        // No CheckoutRequestID: the push's fate is unknown and Daraja cannot be asked by our
        // reference. Never push again: wait for the callback (which names it) or the deadline.
        if (noCheckoutRequestId(query)) return { kind: 'PENDING' };
        const answer = await send(stkQueryCall(query.operatorReference!, config, now()));
        if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
        return stkQueryResult(answer.status, answer.json);
      }
      // B2C: the verdict comes asynchronously to the callback URL (readCallback applies it).
      if (!query.callbackUrl) return { kind: 'PENDING' };
      const answer = await send(transactionStatusCall(query.reference, config, query.callbackUrl));
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      return transactionStatusAck(answer.status, answer.json);
    },

    readCallback(body, query): CallbackReading {
      const reading = readDarajaCallback(body, query);
      // An STK callback's CheckoutRequestID only matters when the push's answer never reached us.
      if (reading.kind === 'QUERY' && query.direction === 'PAY_IN' && !noCheckoutRequestId(query)) return { kind: 'QUERY', operatorReference: null };
      return reading.kind === 'RESULT' ? { ...reading, isStatusQueryAnswer: false } : reading;
    },

    async check(): Promise<ConnectorCheck[]> {
      const token = await tokens.get('daraja', true);
      const who = `consumer key ${maskSecret(config.consumerKey)}, shortcode ${config.shortCode}, B2C shortcode ${config.b2cShortCode}`;
      return [
        'token' in token
          ? { product: 'MPESA oauth', ok: true, detail: `token obtained (${who})` }
          : { product: 'MPESA oauth', ok: false, detail: `${token.error} (${who})` },
      ];
    },
  };
}
