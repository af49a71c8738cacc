/**
 * The direct charge (`POST /api/v1/pay-in/charge`) of a phone number. Checks the rail (see
 * `rails.ts`), normalises the MSISDN for the rail's country, writes the transaction (once per
 * idempotency key, in one statement with its event, its key and, for rails whose operator id is
 * ours, the prepared initiation), then starts it at the rail. The response is the creation's:
 * PENDING, whatever the operator says next.
 */
import { and, eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { normalizeMsisdn } from '../domain/msisdn.ts';
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import type { Services } from '../services.ts';
import { findReplay, idempotencyScope, type IdempotencyScope } from './idempotency.ts';
import { firstPollAt, initiateTransaction, prepareBeforeInsert } from './initiate-transaction.ts';
import { insertPayInOnce } from './insert-transaction.ts';
import { countCreated } from '../metrics/transaction-metrics.ts';
import { resolveRailFor } from './rails.ts';
import { isRailClosed } from '../rails/index.ts';

/** Validated body of the direct charge. `idempotencyKey` may also come from the header. */
export interface ChargeInput {
  amount: number;
  currency: string;
  paymentMethod: string;
  payerAccount: string;
  merchantReference?: string | undefined;
  description?: string | undefined;
  payerName?: string | undefined;
  payerEmail?: string | undefined;
  idempotencyKey?: string | undefined;
}

/** The 201 `data` of `POST /api/v1/pay-in/charge`. */
export interface ChargeData {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentMethod: string | null;
  payerAccount: string | null;
  payerName: string | null;
  payerEmail: string | null;
  /** Extension: the operator's page the customer must open, on redirect rails only (Wave). */
  redirectUrl?: string;
}

/** Creates the charge; returns the 201 `data` of `POST /api/v1/pay-in/charge`. */
export async function createCharge(
  services: Services,
  auth: ApiKeyAuth,
  input: ChargeInput,
  headerKey?: string,
): Promise<ChargeData> {
  const { idempotencyKey: bodyKey, ...request } = input;
  const idempotencyKey = bodyKey ?? headerKey;
  const scope = idempotencyScope(auth.applicationId, idempotencyKey, 'charge', request);
  const replay = await findReplay<ChargeData>(services, scope);
  // A replayed charge on a redirect rail gives the customer's page again (stored at initiation).
  if (replay) return withRedirectUrl(services, auth, replay);
  const { rail, connector } = await resolveRailFor(services, {
    paymentMethod: input.paymentMethod,
    currency: input.currency,
    amount: input.amount,
    applicationCurrency: auth.currency,
    environment: auth.environment,
  });
  // A LIVE charge on a rail whose operator stopped answering (or that staff closed) is refused
  // before anything is written; TEST keys reach the sandbox, which is never closed to them.
  if (auth.environment === 'LIVE' && (await isRailClosed(services, 'LIVE', rail.code, 'PAY_IN'))) throw new ApiError('RAIL_CLOSED');
  const payerAccount = normalizeMsisdn(input.payerAccount, rail.country);
  if (!payerAccount) throw validationError({ payerAccount: `n'est pas un numéro de téléphone valide (${rail.country})` });
  const now = services.clock.now();
  const row = {
    id: services.ids.uuid(),
    reference: services.ids.reference('PAY_IN'),
    direction: 'PAY_IN' as const,
    amount: input.amount,
    currency: input.currency,
    description: input.description ?? null,
    payerAccount,
    beneficiaryAccount: null,
    deadlineAt: null,
  };
  // Sandbox, MTN, Wave, M-Pesa: the operator id is ours, stored with the transaction (one write).
  const stored = await prepareBeforeInsert(services, row, rail, connector);
  const data: ChargeData = {
    reference: row.reference,
    status: 'PENDING',
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    paymentMethod: rail.code,
    payerAccount,
    payerName: input.payerName ?? null,
    payerEmail: input.payerEmail ?? null,
  };
  // An undefined value leaves the column to its default.
  const values = {
    id: row.id,
    reference: row.reference,
    direction: row.direction,
    amount: row.amount,
    currency: row.currency,
    description: row.description,
    payerAccount: row.payerAccount,
    beneficiaryAccount: row.beneficiaryAccount,
    applicationId: auth.applicationId,
    type: 'CHARGE' as const,
    environment: auth.environment,
    paymentMethod: rail.code,
    payerName: data.payerName,
    payerEmail: data.payerEmail,
    merchantReference: input.merchantReference ?? null,
    operatorReference: stored?.operatorReference,
    callbackToken: stored?.callbackToken,
    initiatedAt: stored?.initiatedAt,
    inFlightUntil: stored?.inFlightUntil,
    deadlineAt: stored ? stored.deadlineAt : row.deadlineAt,
    nextPollAt: stored
      ? firstPollAt(stored.initiatedAt)
      : // Until initiation is recorded, the poller treats the row as a possible crash leftover.
        new Date(now.getTime() + services.config.connectorTimeoutMs + 5000),
  };
  const created = await insertPayInOnce(services, scope, values, data, now);
  if (!created) return replayCharge(services, auth, scope!);
  countCreated(services.metrics, { paymentMethod: rail.code, direction: 'PAY_IN', environment: auth.environment });
  const initiated = await initiateTransaction(services, row, rail, connector, stored);
  return initiated.redirectUrl ? { ...data, redirectUrl: initiated.redirectUrl } : data;
}

/** The stored response of a charge whose key another request holds (held), with its customer page on redirect rails. */
async function replayCharge(services: Services, auth: ApiKeyAuth, scope: IdempotencyScope): Promise<ChargeData> {
  const replay = await findReplay<ChargeData>(services, scope);
  if (!replay) throw new ApiError('INTERNAL_SERVER_ERROR');
  return withRedirectUrl(services, auth, replay);
}

async function withRedirectUrl(services: Services, auth: ApiKeyAuth, replay: ChargeData): Promise<ChargeData> {
  const [row] = await services.db
    .select({ redirectUrl: transactions.redirectUrl })
    .from(transactions)
    .where(and(eq(transactions.reference, replay.reference), eq(transactions.applicationId, auth.applicationId)))
    .limit(1);
  return row?.redirectUrl ? { ...replay, redirectUrl: row.redirectUrl } : replay;
}
