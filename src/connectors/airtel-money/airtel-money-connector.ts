/**
 * Airtel Money (Airtel Africa Open API) connector: the plumbing. One bearer token for the
 * application (`POST /auth/oauth2/token`, client credentials), which Airtel gives for 180 s: it is
 * renewed 30 s before it runs out, and once on a 401. Every call carries `X-Country` and
 * `X-Currency` of the rail. Our reference is Airtel's `transaction.id`, so an enquiry can always
 * name it (callbacks: `airtel-money-operator.ts`). The wire format lives in `airtel-transformers.ts`.
 */
import type { Clock } from '../../domain/clock.ts';
import { nationalNumber } from '../../domain/msisdn.ts';
import type { BalanceResult, Connector, ConnectorCheck, InitiateResult, PrepareResult, RefundedPayment, Rail, StatusResult } from '../connector.ts';
import { callOperator, createTokenCache, maskSecret, type FetchFn } from '../operator-http.ts';
import { requestAccessToken, sendWithBearer, type BearerSent, type BearerTokenError } from '../bearer-send.ts';
import type { AirtelMoneyConfig } from './airtel-money-config.ts';
import { AIRTEL_MARKETS } from './airtel-money-config.ts';
import {
  airtelBalanceCall,
  airtelBalanceResult,
  airtelCollectionCall,
  airtelDisbursementCall,
  airtelEnquiryCall,
  airtelInitiateResult,
  airtelRefundCall,
  airtelRefundResult,
  airtelStatusResult,
  encryptAirtelPin,
  type AirtelCall,
} from './airtel-transformers.ts';

/** Dependencies of the Airtel connector. */
export interface AirtelMoneyOptions {
  config: AirtelMoneyConfig;
  fetch: FetchFn;
  clock: Clock;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  /** Optional warning sink (never given secrets). */
  warn?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
}

/** Renewal margin before a token's expiry: Airtel's tokens last 180 s, so a request never carries one about to lapse. */
export const AIRTEL_TOKEN_MARGIN_MS = 30_000;

/** The Airtel connector, plus the balance query of one country's wallet. */
export interface AirtelMoneyConnector extends Connector {
  /** Reads the balance of the wallet serving `country` (`GET /standard/v1/users/balance`). Never throws; aborted: UNKNOWN. */
  readBalanceOf(country: string, signal: AbortSignal): Promise<BalanceResult>;
}

/**
 * Creates the Airtel Money connector, serving every configured country's rail. Its
 * `readBalance` is per country (`readBalanceOf`): the operator registry gives each country's
 * rail a connector whose `readBalance` names that country.
 */
export function createAirtelMoneyConnector(options: AirtelMoneyOptions): AirtelMoneyConnector {
  const { config, timeoutMs } = options;
  const tokens = createTokenCache<BearerTokenError>(
    () => options.clock.now().getTime(),
    AIRTEL_TOKEN_MARGIN_MS,
    async () =>
      requestAccessToken(
        options.fetch,
        {
          method: 'POST',
          url: `${config.baseUrl}/auth/oauth2/token`,
          headers: { 'Content-Type': 'application/json', Accept: '*/*' },
          body: JSON.stringify({ client_id: config.clientId, client_secret: config.clientSecret, grant_type: 'client_credentials' }),
        },
        timeoutMs,
        'Airtel token',
        180,
      ),
  );

  /** Sends `call` with the bearer token; on a 401 (request not processed), renews it once and resends. */
  function send(call: AirtelCall, signal: AbortSignal): Promise<BearerSent> {
    return sendWithBearer(tokens, 'app', 'Airtel token', signal, (token) =>
      callOperator(
        options.fetch,
        {
          method: call.method,
          url: `${config.baseUrl}${call.path}`,
          headers: { 'Content-Type': 'application/json', Accept: '*/*', 'X-Country': call.country, 'X-Currency': call.currency, Authorization: `Bearer ${token}` },
          body: call.body,
        },
        timeoutMs,
        signal,
      ),
    );
  }

  /** Asks Airtel to refund `refund` in full (`POST /standard/v1/payments/refund`); see `airtelRefundResult`. */
  async function sendRefund(refund: RefundedPayment & { operatorTransactionId: string }, rail: Rail, signal: AbortSignal): Promise<StatusResult | { kind: 'NOT_SENT'; error: string } | { kind: 'TOKEN_REFUSED'; error: string }> {
    const answer = await send(airtelRefundCall(refund.operatorTransactionId, rail.country, rail.currency), signal);
    if (answer.kind === 'NOT_SENT' || answer.kind === 'TOKEN_REFUSED') return answer;
    if (answer.kind === 'UNREACHABLE') return answer;
    return airtelRefundResult(answer.status, answer.json, refund.operatorTransactionId);
  }

  return {
    operator: 'AIRTEL_MONEY',
    preparesLocally: true,
    refundsWholePayments: true,

    async prepare(request): Promise<PrepareResult> {
      // Airtel's transaction.id is ours: our reference, known before Airtel hears of it. Airtel
      // refuses a repeated id, so a resend after its wallet was short is `<reference>-R<n>`.
      return { kind: 'PREPARED', operatorReference: request.resend ? `${request.reference}-R${request.resend}` : request.reference };
    },

    async initiate(request, signal): Promise<InitiateResult> {
      if (request.direction === 'PAY_OUT' && request.refund) {
        // A refund is Airtel's refund of the payment itself, whole: never a disbursement.
        const { refund } = request;
        if (!refund.operatorTransactionId) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: `Airtel: payment ${refund.reference} has no airtel_money_id to refund` };
        if (refund.amount !== request.amount) return { kind: 'FAILED', failureCode: 'INVALID_REQUEST', failureReason: 'Airtel refunds a payment in full only' };
        const answer = await sendRefund({ ...refund, operatorTransactionId: refund.operatorTransactionId }, request.rail, signal);
        if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
        // SUCCESS: refunded; the status query (the same refund, answered again) records it.
        if (answer.kind === 'SUCCEEDED') return { kind: 'ACCEPTED', operatorReference: request.operatorReference };
        return answer.kind === 'NOT_SENT' ? answer : { kind: 'UNREACHABLE', error: 'error' in answer ? answer.error : `Airtel refund: ${answer.kind}` };
      }
      // Airtel takes the national significant number, without the country code (`05…` in Congo).
      const msisdn = nationalNumber(request.msisdn, request.rail.country);
      const common = { id: request.operatorReference, reference: request.reference, msisdn, amount: request.amount, country: request.rail.country, currency: request.currency };
      const call = request.direction === 'PAY_IN' ? airtelCollectionCall(common) : airtelDisbursementCall({ ...common, encryptedPin: encryptAirtelPin(config.pin, config.publicKey) });
      const answer = await send(call, signal);
      if (answer.kind === 'UNREACHABLE' || answer.kind === 'NOT_SENT') return answer;
      if (answer.kind === 'TOKEN_REFUSED') return { kind: 'FAILED', failureCode: 'CONFIGURATION_ERROR', failureReason: answer.error };
      return airtelInitiateResult(answer.status, answer.json, request.operatorReference);
    },

    async getStatus(query, signal): Promise<StatusResult> {
      if (!query.operatorReference) return { kind: 'NOT_FOUND' };
      if (query.direction === 'PAY_OUT' && query.refund) {
        // Airtel documents no enquiry of a refund. Its refund is keyed by the payment's
        // airtel_money_id and refunds that payment once, so asking it again is the enquiry:
        // SUCCESS means refunded; anything else leaves the money where it is.
        if (!query.refund.operatorTransactionId) return { kind: 'UNREACHABLE', error: 'Airtel: the refunded payment has no airtel_money_id' };
        const answer = await sendRefund({ ...query.refund, operatorTransactionId: query.refund.operatorTransactionId }, query.rail, signal);
        return answer.kind === 'NOT_SENT' || answer.kind === 'TOKEN_REFUSED' ? { kind: 'UNREACHABLE', error: answer.error } : answer;
      }
      const answer = await send(airtelEnquiryCall(query.direction, query.operatorReference, query.rail.country, query.rail.currency), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNREACHABLE', error: answer.error };
      return airtelStatusResult(answer.status, answer.json, query.direction, query.initiation === 'UNKNOWN');
    },

    async readBalanceOf(country, signal): Promise<BalanceResult> {
      const currency = AIRTEL_MARKETS[country]?.currency;
      if (!currency) return { kind: 'UNKNOWN', error: `Airtel: no market ${country}` };
      const answer = await send(airtelBalanceCall(country, currency), signal);
      if (answer.kind !== 'RESPONSE') return { kind: 'UNKNOWN', error: answer.error };
      return airtelBalanceResult(answer.status, answer.json);
    },

    async check(): Promise<ConnectorCheck[]> {
      const token = await tokens.get('app', true);
      const who = `client ${maskSecret(config.clientId)}`;
      return [
        'token' in token
          ? { product: 'AIRTEL_MONEY', ok: true, detail: `token obtained (${who}, ${config.countries.join(', ')})` }
          : { product: 'AIRTEL_MONEY', ok: false, detail: `${token.error} (${who})` },
      ];
    },
  };
}
