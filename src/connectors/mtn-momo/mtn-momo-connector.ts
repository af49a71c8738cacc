/**
 * MTN MoMo Open API connector: the plumbing (https://momodeveloper.mtn.com/api-documentation,
 * "Create access token" of each product). One bearer token per product (collection, disbursement),
 * each fetched with that product's own API user, API key and subscription key, cached until 60 s
 * before `expires_in`, refreshed once on a 401. Every call has a timeout and stops when the
 * caller's signal aborts: a transfer whose account-holder check or token outlasts the caller is
 * never sent (`NOT_SENT`). The wire format lives in `mtn-transformers.ts`.
 */
import type { Clock } from '../../domain/clock.ts';
import type { MtnMomoMarketSettings } from './mtn-momo-config.ts';
import type { BalanceResult, Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusResult } from '../connector.ts';
import { basicAuth, callOperator, createTokenCache, maskSecret, type FetchFn } from '../operator-http.ts';
import { requestAccessToken, sendWithBearer, type BearerSent, type BearerTokenError } from '../bearer-send.ts';
import {
  mtnAccountHolderCall,
  mtnAccountHolderResult,
  mtnBalanceCall,
  mtnBalanceResult,
  mtnInitiateCall,
  mtnInitiateResult,
  mtnStatusCall,
  mtnStatusResult,
  type MtnCall,
  type MtnProduct,
} from './mtn-transformers.ts';

/** Dependencies of the MTN connector. `uuid` must return UUIDv4 (MTN refuses anything else). */
export interface MtnMomoOptions {
  /** The one market this connector serves (its rail, target environment and credentials). */
  config: MtnMomoMarketSettings;
  fetch: FetchFn;
  clock: Clock;
  uuid: () => string;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  /** Optional warning sink (never given secrets). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** Safety margin before a token's expiry: MTN asks for a new token before `expires_in` (3600 s). */
export const MTN_TOKEN_MARGIN_MS = 60_000;

/** Creates the MTN MoMo connector from its configuration. */
export function createMtnMomoConnector(options: MtnMomoOptions): Connector {
  const { config, timeoutMs } = options;
  const credentials = (product: MtnProduct) => config[product];

  const tokens = createTokenCache<BearerTokenError>(
    () => options.clock.now().getTime(),
    MTN_TOKEN_MARGIN_MS,
    async (product) => {
      const c = credentials(product as MtnProduct);
      // No body: MTN lists "a body on an API that takes none, e.g. /token" as a 400 cause.
      return requestAccessToken(
        options.fetch,
        {
          method: 'POST',
          url: `${config.baseUrl}/${product}/token/`,
          headers: { Authorization: basicAuth(c.apiUser, c.apiKey), 'Ocp-Apim-Subscription-Key': c.subscriptionKey },
        },
        timeoutMs,
        `MTN ${product} token`,
        3600,
      );
    },
  );

  /**
   * Sends `call` with the product's bearer token; on a 401 (the request was not processed), refreshes
   * the token once and resends. NOT_SENT when `signal` aborts before the request leaves, or no token could be had.
   */
  function send(call: MtnCall, signal: AbortSignal): Promise<BearerSent> {
    return sendWithBearer(tokens, call.product, `MTN ${call.product} token`, signal, (token) =>
      callOperator(
        options.fetch,
        {
          method: call.method,
          url: `${config.baseUrl}${call.path}`,
          headers: { ...call.headers, Authorization: `Bearer ${token}`, 'Ocp-Apim-Subscription-Key': credentials(call.product).subscriptionKey },
          body: call.body,
        },
        timeoutMs,
        signal,
      ),
    );
  }

  return {
    operator: 'MTN_MOMO',
    preparesLocally: true,

    async prepare(): Promise<PrepareResult> {
      // X-Reference-Id is ours: generated (UUIDv4) and stored before MTN hears of it.
      return { kind: 'PREPARED', operatorReference: options.uuid() };
    },

    async initiate(request, signal): Promise<InitiateResult> {
      if (request.direction === 'PAY_OUT') {
        const check = await send(mtnAccountHolderCall(request.msisdn, config.targetEnvironment), signal);
        if (check.kind === 'RESPONSE') {
          const holder = mtnAccountHolderResult(check.status, check.json);
          if (holder.kind === 'FAILED') return holder;
          if (holder.kind === 'UNKNOWN') options.warn?.({ reference: request.reference, error: holder.error }, 'MTN account-holder check inconclusive; sending the transfer');
        } else if (check.kind === 'TOKEN_REFUSED') {
          return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: check.error };
        }
        // An unreachable check: the transfer itself will tell (MTN refuses an unknown payee) —
        // unless the caller gave up meanwhile: then `send` sends nothing (NOT_SENT).
      }
      const answer = await send(mtnInitiateCall(request, config.targetEnvironment), signal);
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return mtnInitiateResult(answer.status, answer.json, request.direction, request.operatorReference);
    },

    async getStatus(query, signal): Promise<StatusResult> {
      // No id stored means prepare never completed: nothing was ever sent to MTN.
      if (!query.operatorReference) return { kind: 'NOT_FOUND' };
      const answer = await send(mtnStatusCall(query.direction, query.operatorReference, config.targetEnvironment), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      return mtnStatusResult(answer.status, answer.json, query.direction, query.operatorReference, query.initiation);
    },

    async readBalance(signal): Promise<BalanceResult> {
      // Pay-outs are paid from the disbursement account: that balance is the rail's float.
      const answer = await send(mtnBalanceCall('disbursement', config.targetEnvironment), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNKNOWN', error: answer.error };
      return mtnBalanceResult(answer.status, answer.json);
    },

    async check(): Promise<ConnectorCheck[]> {
      const lines: ConnectorCheck[] = [];
      for (const product of ['collection', 'disbursement'] as const) {
        const token = await tokens.get(product, true);
        const who = `API user ${maskSecret(credentials(product).apiUser)}, subscription key ${maskSecret(credentials(product).subscriptionKey)}`;
        lines.push(
          'token' in token
            ? { product: `MTN_MOMO ${product}`, ok: true, detail: `token obtained (${who}, ${config.targetEnvironment})` }
            : { product: `MTN_MOMO ${product}`, ok: false, detail: `${token.error} (${who})` },
        );
      }
      return lines;
    },
  };
}
