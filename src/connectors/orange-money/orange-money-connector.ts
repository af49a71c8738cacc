/**
 * Orange Money Cameroon connector (OM API, `omcoreapis/1.0.2`): the plumbing. An OAuth
 * client-credentials token (`POST /token`, Basic consumer key:secret) cached until 60 s before
 * `expires_in` and refreshed once on a 401; every API call also carries
 * `X-AUTH-TOKEN: base64(api username:password)`; the channel MSISDN and PIN go in `pay` bodies.
 * Pay-in is `mp/init` (in `prepare`: it only yields a `payToken`) then `mp/pay` (the USSD push,
 * sent at most once per payToken: after an ambiguous answer the status query decides). Every call
 * stops when the caller's signal aborts: a `pay` whose token outlasts the caller is never sent.
 */
import type { Clock } from '../../domain/clock.ts';
import type { OrangeMoneyConfig } from './orange-money-config.ts';
import type { Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusResult } from '../connector.ts';
import { basicAuth, callOperator, createTokenCache, maskSecret, type FetchFn } from '../operator-http.ts';
import { requestAccessToken, sendWithBearer, type BearerSent, type BearerTokenError } from '../bearer-send.ts';
import { orangeInitCall, orangeInitResult, orangePayCall, orangePayResult, orangeStatusCall, orangeStatusResult, type OrangeCall } from './orange-transformers.ts';

/** Dependencies of the Orange connector. */
export interface OrangeMoneyOptions {
  config: OrangeMoneyConfig;
  fetch: FetchFn;
  clock: Clock;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Safety margin before the token's expiry. */
export const ORANGE_TOKEN_MARGIN_MS = 60_000;

/** Creates the Orange Money Cameroon connector. */
export function createOrangeMoneyConnector(options: OrangeMoneyOptions): Connector {
  const { config, timeoutMs } = options;
  const xAuthToken = Buffer.from(`${config.apiUsername}:${config.apiPassword}`, 'utf8').toString('base64');

  const tokens = createTokenCache<BearerTokenError>(
    () => options.clock.now().getTime(),
    ORANGE_TOKEN_MARGIN_MS,
    async () =>
      requestAccessToken(
        options.fetch,
        {
          method: 'POST',
          url: `${config.baseUrl}/token`,
          headers: { Authorization: basicAuth(config.consumerKey, config.consumerSecret), 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        },
        timeoutMs,
        'Orange Money token',
        3600,
      ),
  );

  /**
   * Sends `call` with the bearer and X-AUTH-TOKEN; on a 401 (the gateway refusing the token: the
   * request never reached Orange Money), refreshes the token once and resends.
   * NOT_SENT when `signal` aborts before the request leaves, or no token could be had.
   */
  function send(call: OrangeCall, signal: AbortSignal): Promise<BearerSent> {
    return sendWithBearer(tokens, 'om', 'Orange Money token', signal, (token) =>
      callOperator(
        options.fetch,
        {
          method: call.method,
          url: `${config.baseUrl}${call.path}`,
          headers: { ...call.headers, Authorization: `Bearer ${token}`, 'X-AUTH-TOKEN': xAuthToken },
          body: call.body,
        },
        timeoutMs,
        signal,
      ),
    );
  }

  return {
    operator: 'ORANGE_MONEY',

    async prepare(request, signal): Promise<PrepareResult> {
      const answer = await send(orangeInitCall(request.direction), signal);
      // `init` moves no money: not sent or not answered, it is prepared again later.
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return { kind: 'UNREACHABLE', error: answer.error };
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return orangeInitResult(answer.status, answer.json);
    },

    async initiate(request, signal): Promise<InitiateResult> {
      const answer = await send(orangePayCall(request, config), signal);
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return orangePayResult(answer.status, answer.json, request.direction, request.operatorReference);
    },

    async getStatus(query, signal): Promise<StatusResult> {
      if (!query.operatorReference) return { kind: 'NOT_FOUND' };
      const answer = await send(orangeStatusCall(query.direction, query.operatorReference), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      return orangeStatusResult(answer.status, answer.json, query.direction, query.operatorReference, query.initiation);
    },

    async check(): Promise<ConnectorCheck[]> {
      const token = await tokens.get('om', true);
      const who = `consumer key ${maskSecret(config.consumerKey)}, channel ${maskSecret(config.channelMsisdn)}`;
      return [
        'token' in token
          ? { product: 'ORANGE_MONEY om-api', ok: true, detail: `token obtained (${who})` }
          : { product: 'ORANGE_MONEY om-api', ok: false, detail: `${token.error} (${who})` },
      ];
    },
  };
}
