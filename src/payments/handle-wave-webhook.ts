/**
 * A Wave webhook, already authenticated by its `Wave-Signature`: a hint like every callback. It
 * names a checkout session or payout (Wave's id and our `client_reference`); the only thing it does
 * is trigger a status query for the transaction or checkout attempt it names, on a Wave rail.
 * Unknown subjects and settled transactions change nothing.
 */
import { and, eq, like } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { waveEventSubject } from '../connectors/wave/wave-transformers.ts';
import type { Services } from '../services.ts';
import { refreshAttempt } from './refresh-checkout.ts';
import { refreshTransaction } from './refresh-transaction.ts';
import type { CallbackOutcome } from './handle-operator-callback.ts';

/** Handles a verified Wave event body (parsed JSON). Never throws for bad input. */
export async function handleWaveWebhook(services: Services, event: unknown): Promise<CallbackOutcome> {
  const subject = waveEventSubject(event);
  const reference = subject.clientReference?.slice(0, 128) ?? null;
  if (reference) {
    const [row] = await services.db
      .select()
      .from(transactions)
      .where(and(eq(transactions.reference, reference), like(transactions.paymentMethod, 'WAVE_%')))
      .limit(1);
    if (row) {
      if (row.status !== 'PENDING') return 'ALREADY_SETTLED';
      await refreshTransaction(services, row, { prompted: true });
      return 'QUERIED';
    }
    const [attempt] = await services.db
      .select()
      .from(checkoutAttempts)
      .where(and(eq(checkoutAttempts.correlationId, reference), like(checkoutAttempts.railCode, 'WAVE_%')))
      .limit(1);
    if (attempt) {
      if (attempt.status !== 'PENDING') return 'ALREADY_SETTLED';
      await refreshAttempt(services, attempt);
      return 'QUERIED';
    }
  }
  return 'UNKNOWN_TOKEN';
}
