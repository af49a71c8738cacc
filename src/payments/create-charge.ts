/**
 * Spec 4.2: a direct charge of a phone number. Checks the rail (see `rails.ts`), normalises the
 * MSISDN for the rail's country, writes the transaction (once per idempotency key), then starts
 * it at the rail. The response is the creation's: PENDING, whatever the operator says next.
 */
import { and, eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { validationError } from '../domain/errors.ts';
import { normalizeMsisdn } from '../domain/msisdn.ts';
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import type { Services } from '../services.ts';
import { createOnce, findReplay, idempotencyScope } from './idempotency.ts';
import { initiateTransaction } from './initiate-transaction.ts';
import { insertTransaction } from './insert-transaction.ts';
import { resolveRailFor } from './rails.ts';

/** Validated charge request (spec 4.2). `idempotencyKey` may also come from the header. */
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

/** The 201 `data` of spec 4.2. */
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

/** Creates the charge; returns the 201 `data` of spec 4.2. */
export async function createCharge(services: Services, auth: ApiKeyAuth, input: ChargeInput, headerKey?: string): Promise<ChargeData> {
  const { idempotencyKey: bodyKey, ...request } = input;
  const idempotencyKey = bodyKey ?? headerKey;
  const scope = idempotencyScope(auth.applicationId, idempotencyKey, 'charge', request);
  const replay = await findReplay<ChargeData>(services, scope);
  if (replay) {
    // A replayed charge on a redirect rail gives the customer's page again (stored at initiation).
    const [row] = await services.db
      .select({ redirectUrl: transactions.redirectUrl })
      .from(transactions)
      .where(and(eq(transactions.reference, replay.reference), eq(transactions.applicationId, auth.applicationId)))
      .limit(1);
    return row?.redirectUrl ? { ...replay, redirectUrl: row.redirectUrl } : replay;
  }
  const { rail, connector } = await resolveRailFor(services, {
    paymentMethod: input.paymentMethod,
    currency: input.currency,
    amount: input.amount,
    applicationCurrency: auth.currency,
    environment: auth.environment,
  });
  const payerAccount = normalizeMsisdn(input.payerAccount, rail.country);
  if (!payerAccount) throw validationError({ payerAccount: `n'est pas un numéro de téléphone valide (${rail.country})` });
  const now = services.clock.now();
  const result = await createOnce<ChargeData>(services, scope, async (tx) => {
    const row = await insertTransaction(
      tx,
      {
        id: services.ids.uuid(),
        reference: services.ids.reference('PAY_IN'),
        applicationId: auth.applicationId,
        direction: 'PAY_IN',
        type: 'CHARGE',
        environment: auth.environment,
        amount: input.amount,
        currency: input.currency,
        description: input.description ?? null,
        paymentMethod: rail.code,
        payerAccount,
        payerName: input.payerName ?? null,
        payerEmail: input.payerEmail ?? null,
        merchantReference: input.merchantReference ?? null,
        // Until initiation is recorded, the poller treats the row as a possible crash leftover.
        nextPollAt: new Date(now.getTime() + services.config.connectorTimeoutMs + 5000),
      },
      now,
    );
    return {
      row,
      data: {
        reference: row.reference,
        status: 'PENDING' as const,
        amount: row.amount,
        currency: row.currency,
        description: row.description,
        paymentMethod: row.paymentMethod,
        payerAccount: row.payerAccount,
        payerName: row.payerName,
        payerEmail: row.payerEmail,
      },
    };
  });
  if (result.replayed) return result.data;
  const initiated = await initiateTransaction(services, result.row, rail, connector);
  return initiated.redirectUrl ? { ...result.data, redirectUrl: initiated.redirectUrl } : result.data;
}
