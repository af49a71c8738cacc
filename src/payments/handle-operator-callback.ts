/**
 * An operator callback (MTN `X-Callback-Url`, Orange `notifUrl`): a hint, never proof
 * (operators.md §0 rule 2: the operators sign nothing). The per-transaction token in the URL
 * path finds the transaction or checkout attempt; the only thing a callback does is trigger a
 * fresh status query at the operator, whose answer goes through the usual compare-and-set
 * transitions. The body is never read. Unknown tokens, another operator's path, or a
 * transaction already settled change nothing — except a pay-in closed without a final answer,
 * whose late-success watch is reopened (`reopenLateWatch`): the operator may be reporting a late
 * success, and the watch's status query decides.
 */
import { eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import type { Services } from '../services.ts';
import { operatorSlug } from './initiate-transaction.ts';
import { findRail } from './rails.ts';
import { refreshAttempt } from './refresh-checkout.ts';
import { refreshTransaction } from './refresh-transaction.ts';
import { reopenLateWatch } from './late-success.ts';

/** What a callback led to (for logs and tests; the operator always gets 200). */
export type CallbackOutcome = 'UNKNOWN_TOKEN' | 'ALREADY_SETTLED' | 'QUERIED';

/** Shape of a callback token (hex, see `newCallbackToken`); anything else is unknown at once. */
const TOKEN_SHAPE = /^[0-9a-f]{16,128}$/;

/** Handles a callback on `/api/v1/callbacks/<operatorPath>/<token>`. Never throws for bad input. */
export async function handleOperatorCallback(services: Services, operatorPath: string, token: string): Promise<CallbackOutcome> {
  if (!TOKEN_SHAPE.test(token)) return 'UNKNOWN_TOKEN';
  const [row] = await services.db.select().from(transactions).where(eq(transactions.callbackToken, token)).limit(1);
  if (row) {
    const rail = row.paymentMethod ? await findRail(services.db, row.paymentMethod) : null;
    if (!rail || operatorSlug(rail.operator) !== operatorPath) return 'UNKNOWN_TOKEN';
    // A closed pay-in whose outcome was never known: maybe a late success; the watch asks.
    if (row.status !== 'PENDING') return (await reopenLateWatch(services, row.id)) ? 'QUERIED' : 'ALREADY_SETTLED';
    await refreshTransaction(services, row);
    return 'QUERIED';
  }
  const [attempt] = await services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.callbackToken, token)).limit(1);
  if (!attempt) return 'UNKNOWN_TOKEN';
  const rail = await findRail(services.db, attempt.railCode);
  if (!rail || operatorSlug(rail.operator) !== operatorPath) return 'UNKNOWN_TOKEN';
  if (attempt.status !== 'PENDING') return (await reopenLateWatch(services, attempt.transactionId)) ? 'QUERIED' : 'ALREADY_SETTLED';
  // Whatever its checkout's state: a request that reached the operator is always resolved.
  await refreshAttempt(services, attempt);
  return 'QUERIED';
}
