/**
 * The customer backs out of a hosted checkout (spec "States and transitions": PENDING →
 * CANCELLED, checkout only). An attempt in flight is asked about one last time first: when its
 * money has already moved the checkout succeeds instead, and the customer is told so.
 * Otherwise the attempt is closed (CUSTOMER_CANCELLED) with the checkout.
 */
import type { Services } from '../services.ts';
import { applyTransition } from './apply-transition.ts';
import { failAttempt, findPendingAttempt } from './checkout-attempt-records.ts';
import { refreshCheckout } from './refresh-checkout.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Cancels a PENDING checkout; returns the row as it ends up (CANCELLED, or whatever won the race). */
export async function cancelCheckout(services: Services, checkout: TransactionRow): Promise<'CANCELLED' | 'NOT_PENDING'> {
  if (checkout.status !== 'PENDING') return 'NOT_PENDING';
  const outcome = await refreshCheckout(services, checkout, { forcePoll: true });
  if (outcome === 'SUCCESS' || outcome === 'EXPIRED') return 'NOT_PENDING';
  const cancelled = await applyTransition(services, {
    transactionId: checkout.id,
    event: 'CUSTOMER_CANCELLED',
    cause: 'CUSTOMER',
  });
  if (!cancelled) return 'NOT_PENDING';
  const inFlight = await findPendingAttempt(services.db, checkout.id);
  if (inFlight) {
    services.log.warn({ reference: checkout.reference, attempt: inFlight.attemptNumber }, 'checkout cancelled with an attempt in flight');
    await failAttempt(services, inFlight, { code: 'CUSTOMER_CANCELLED', reason: 'Le client a annulé le paiement.', cause: 'CUSTOMER' });
  }
  return 'CANCELLED';
}
