/**
 * A callback an operator signs (Wave's webhook), already authenticated by the route: a hint like
 * every callback. The operator's `SignedCallback.referenceOf` read the reference it names (ours:
 * Wave's `client_reference`); the only thing it does is trigger a status query for the transaction
 * or checkout attempt with that reference, on one of that operator's rails (`railPrefix`).
 * Unknown subjects and settled transactions change nothing.
 */
import { and, eq, like } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { refreshAttempt } from './refresh-checkout.ts';
import { refreshTransaction } from './refresh-transaction.ts';
import type { CallbackOutcome } from './handle-operator-callback.ts';

/** Handles a verified callback naming `reference` (or none) on the rails starting with `railPrefix`. Never throws for bad input. */
export async function handleSignedCallback(services: Services, railPrefix: string, reference: string | null): Promise<CallbackOutcome> {
  const bounded = reference?.slice(0, 128) ?? null;
  if (bounded) {
    const [row] = await services.db
      .select()
      .from(transactions)
      .where(and(eq(transactions.reference, bounded), like(transactions.paymentMethod, `${railPrefix}%`)))
      .limit(1);
    if (row) {
      if (row.status !== 'PENDING') return 'ALREADY_SETTLED';
      await refreshTransaction(services, row, { prompted: true });
      return 'QUERIED';
    }
    const [attempt] = await services.db
      .select()
      .from(checkoutAttempts)
      .where(and(eq(checkoutAttempts.correlationId, bounded), like(checkoutAttempts.railCode, `${railPrefix}%`)))
      .limit(1);
    if (attempt) {
      if (attempt.status !== 'PENDING') return 'ALREADY_SETTLED';
      await refreshAttempt(services, attempt);
      return 'QUERIED';
    }
  }
  return 'UNKNOWN_TOKEN';
}
