/**
 * Orange Money Web Payment connector: the plumbing (Orange's "OM WebPay" API). An OAuth
 * client-credentials token (`POST /oauth/v3/token`, Basic client id:secret) cached until 60 s
 * before `expires_in` and fetched again once on a 401. Pay-in is a redirect: `POST …/webpayment`
 * with our reference as `order_id` answers `pay_token`, `payment_url` (the page the customer pays
 * on with an OTP) and `notif_token`; the notif_token is kept in the shared state under the
 * pay_token, and a notification whose `notif_token` is not that one is ignored
 * (`callbackProblem`). Status is `POST …/transactionstatus` `{order_id, amount, pay_token}`.
 * Web Payment has no pay-out. One connector per country (merchant wallet, rail
 * `ORANGE_WEBPAY_<country>`). Every call stops when the caller's signal aborts. The wire format
 * lives in `orange-webpay-transformers.ts`.
 */
import type { Clock } from '../../domain/clock.ts';
import type { OrangeWebpayConfig, OrangeWebpayMerchant } from './orange-webpay-config.ts';
import type { Connector, ConnectorCheck, InitiateResult, PrepareResult, StatusResult } from '../connector.ts';
import { requestAccessToken } from '../bearer-send.ts';
import {
  basicAuth,
  callOperator,
  createTokenCache,
  maskSecret,
  untilAborted,
  type FetchFn,
  type OperatorNotSent,
  type OperatorResponse,
  type OperatorUnreachable,
  type TokenCache,
} from '../operator-http.ts';
import type { SharedState } from '../shared-state.ts';
import {
  WEBPAY_DEV_CURRENCY,
  webpayNotificationProblem,
  webpaymentCall,
  webpaymentResult,
  webpayPrefix,
  webpayStatusCall,
  webpayStatusResult,
  type WebpayCall,
} from './orange-webpay-transformers.ts';

/** Safety margin before the token's expiry. */
export const WEBPAY_TOKEN_MARGIN_MS = 60_000;

/**
 * How long a payment's `notif_token` is kept, milliseconds (7 days): far longer than a payment
 * token's validity (minutes), so a late notification is still recognised.
 */
export const WEBPAY_NOTIF_TOKEN_TTL_MS = 7 * 24 * 3600_000;

/** The shared-state key of the `notif_token` answered for `payToken`. */
export function webpayNotifTokenKey(payToken: string): string {
  return `orange-webpay:notif-token:${payToken}`;
}

type TokenError = { kind: 'TOKEN_REFUSED'; error: string } | { kind: 'UNREACHABLE'; error: string };
/** What `send` answers: Orange's response, or why there is none (`NOT_SENT`: nothing left Kolo). */
type Sent = OperatorResponse | OperatorUnreachable | OperatorNotSent | { kind: 'TOKEN_REFUSED'; error: string };

/** Dependencies of one country's Orange Web Payment connector. */
export interface OrangeWebpayOptions {
  config: OrangeWebpayConfig;
  merchant: OrangeWebpayMerchant;
  /** The token cache shared by the countries' connectors (`createWebpayTokens`). */
  tokens: TokenCache<TokenError>;
  fetch: FetchFn;
  /** Where the `notif_token`s are kept (every instance must recognise a notification). */
  sharedState: SharedState;
  clock: Clock;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  warn?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
}

/** The OAuth token cache of one Orange application (every country's connector shares it). */
export function createWebpayTokens(config: OrangeWebpayConfig, fetch: FetchFn, clock: Clock, timeoutMs: number): TokenCache<TokenError> {
  return createTokenCache<TokenError>(
    () => clock.now().getTime(),
    WEBPAY_TOKEN_MARGIN_MS,
    async () =>
      requestAccessToken(
        fetch,
        {
          method: 'POST',
          url: `${config.baseUrl}/oauth/v3/token`,
          headers: { Authorization: basicAuth(config.clientId, config.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
          body: 'grant_type=client_credentials',
        },
        timeoutMs,
        'Orange WebPay token',
        3600,
      ),
  );
}

/** Creates the Orange Money Web Payment connector of one country (merchant wallet). */
export function createOrangeWebpayConnector(options: OrangeWebpayOptions): Connector {
  const { config, merchant, timeoutMs } = options;
  const prefix = webpayPrefix(merchant.country, config.isDev);

  /**
   * Sends `call` with the bearer token; on a 401, fetches a new token once and resends. NOT_SENT
   * when `signal` aborts before the request leaves, or no token could be had.
   */
  async function send(call: WebpayCall, signal: AbortSignal): Promise<Sent> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const token = await untilAborted(options.tokens.get('webpay', attempt > 0), signal, 'Orange WebPay token');
      if (!('token' in token)) return token.kind === 'UNREACHABLE' ? { kind: 'NOT_SENT', error: token.error } : token;
      const answer = await callOperator(
        options.fetch,
        { method: call.method, url: `${config.baseUrl}${call.path}`, headers: { ...call.headers, Authorization: `Bearer ${token.token}` }, body: call.body },
        timeoutMs,
        signal,
      );
      if (answer.kind !== 'RESPONSE') return answer;
      // A 401 is the gateway refusing the token: the request never reached Orange Money.
      if (answer.status === 401 && attempt === 0) continue;
      return answer;
    }
    throw new Error('unreachable: the loop returns on its second pass');
  }

  return {
    operator: 'ORANGE_WEBPAY',
    preparesLocally: true,
    payInFlow: 'REDIRECT',

    async prepare(request): Promise<PrepareResult> {
      if (request.direction === 'PAY_OUT') return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: 'Orange Money Web Payment has no pay-out' };
      // Orange names the payment (pay_token) only in its answer; our reference stands in until then.
      return { kind: 'PREPARED', operatorReference: request.reference };
    },

    async initiate(request, signal): Promise<InitiateResult> {
      if (request.direction === 'PAY_OUT') return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: 'Orange Money Web Payment has no pay-out' };
      if (!request.returnUrl || !request.callbackUrl) {
        return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: 'Orange WebPay needs a return URL and a notification URL' };
      }
      const call = webpaymentCall(request, request.returnUrl, request.callbackUrl, {
        prefix,
        merchantKey: merchant.merchantKey,
        currency: config.isDev ? WEBPAY_DEV_CURRENCY : merchant.currency,
        lang: 'fr',
      });
      const answer = await send(call, signal);
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      const created = webpaymentResult(answer.status, answer.json);
      if (created.kind !== 'CREATED') return created;
      try {
        await options.sharedState.put(webpayNotifTokenKey(created.payToken), created.notifToken, new Date(options.clock.now().getTime() + WEBPAY_NOTIF_TOKEN_TTL_MS));
      } catch (error) {
        // Not kept: its notifications will be ignored, and the poller settles the payment.
        options.warn?.({ err: error, reference: request.reference }, 'Orange WebPay: notif_token not stored');
      }
      return { kind: 'ACCEPTED', operatorReference: created.payToken, redirectUrl: created.paymentUrl };
    },

    async getStatus(query, signal): Promise<StatusResult> {
      if (!query.operatorReference || query.operatorReference === query.reference) {
        // The creation's answer was lost: without it, no customer holds the payment page, so
        // nothing can be paid; once none of its requests can still arrive, it never landed.
        return query.initiation === 'UNKNOWN' ? { kind: 'NOT_FOUND' } : { kind: 'PENDING' };
      }
      const answer = await send(webpayStatusCall(prefix, query.reference, query.amount, query.operatorReference), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      return webpayStatusResult(answer.status, answer.json, query.operatorReference);
    },

    async callbackProblem(body, operatorReference): Promise<string | null> {
      if (!operatorReference) return 'no pay_token for this payment';
      try {
        return webpayNotificationProblem(body, await options.sharedState.get(webpayNotifTokenKey(operatorReference)));
      } catch {
        return 'notif_token store unavailable';
      }
    },

    async check(): Promise<ConnectorCheck[]> {
      const token = await options.tokens.get('webpay', true);
      const who = `client id ${maskSecret(config.clientId)}, merchant key ${maskSecret(merchant.merchantKey)}`;
      const product = 'ORANGE_WEBPAY webpayment';
      return [
        'token' in token ? { product, ok: true, detail: `token obtained (${who})` } : { product, ok: false, detail: `${token.error} (${who})` },
      ];
    },
  };
}
