/**
 * The customer backs out of a hosted checkout (spec "States and transitions": PENDING →
 * CANCELLED, checkout only). An attempt in flight is asked about one last time first: when its
 * money has already moved the checkout succeeds instead. While the operator still holds the
 * payment request (the customer can approve it on the phone), the checkout is NOT cancelled:
 * cancelling then could record CANCELLED for money that moves a minute later. The customer is
 * asked to refuse the request on the phone; once the attempt fails, cancelling works.
 */
import type { Services } from '../services.ts';
import { applyTransition } from './apply-transition.ts';
import { failAttempt, findPendingAttempt } from './checkout-attempt-records.ts';
import { refreshCheckout } from './refresh-checkout.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Cancels a PENDING checkout; returns the row as it ends up (CANCELLED, or whatever won the race). */
export async function cancelCheckout(
  services: Services,
  checkout: TransactionRow,
): Promise<'CANCELLED' | 'NOT_PENDING' | 'ATTEMPT_IN_FLIGHT'> {
  if (checkout.status !== 'PENDING') return 'NOT_PENDING';
  const outcome = await refreshCheckout(services, checkout, { forcePoll: true });
  if (outcome === 'SUCCESS' || outcome === 'EXPIRED') return 'NOT_PENDING';
  if (await findPendingAttempt(services.db, checkout.id)) return 'ATTEMPT_IN_FLIGHT';
  const cancelled = await applyTransition(services, {
    transactionId: checkout.id,
    event: 'CUSTOMER_CANCELLED',
    cause: 'CUSTOMER',
  });
  if (!cancelled) return 'NOT_PENDING';
  // An attempt started between the check above and the cancellation cannot succeed any more
  // on our side (the checkout is terminal); close it so it is not polled forever.
  const inFlight = await findPendingAttempt(services.db, checkout.id);
  if (inFlight) {
    services.log.warn({ reference: checkout.reference, attempt: inFlight.attemptNumber }, 'checkout cancelled while an attempt was starting');
    await failAttempt(services, inFlight, { code: 'CUSTOMER_CANCELLED', reason: 'Le client a annulé le paiement.', cause: 'CUSTOMER' });
  }
  return 'CANCELLED';
}
