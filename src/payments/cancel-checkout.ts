/**
 * The customer backs out of a hosted checkout: PENDING → CANCELLED, a transition only checkouts
 * have. An attempt in flight is asked about one last time first: when its money has already moved
 * the checkout succeeds instead. While the operator still holds the payment request (the customer
 * can approve it on the phone), the checkout is NOT cancelled: cancelling then could record
 * CANCELLED for money that moves a minute later. The customer is asked to refuse the request on the
 * phone; once the attempt fails, cancelling works.
 * The cancellation itself is serialised with attempt starts on the checkout's row
 * (`close-checkout.ts`): an attempt that won the lock makes the cancel refuse, never the reverse.
 */
import type { Services } from '../services.ts';
import { closeCheckout } from './close-checkout.ts';
import { refreshCheckout } from './refresh-checkout.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Cancels a PENDING checkout; says what became of it (CANCELLED, or why not). */
export async function cancelCheckout(
  services: Services,
  checkout: TransactionRow,
): Promise<'CANCELLED' | 'NOT_PENDING' | 'ATTEMPT_IN_FLIGHT'> {
  if (checkout.status !== 'PENDING') return 'NOT_PENDING';
  const outcome = await refreshCheckout(services, checkout, { forcePoll: true });
  if (outcome === 'SUCCESS' || outcome === 'EXPIRED') return 'NOT_PENDING';
  const result = await closeCheckout(services, checkout.id, 'CUSTOMER');
  if ('closed' in result) return 'CANCELLED';
  return result.refused === 'ATTEMPT_IN_FLIGHT' ? 'ATTEMPT_IN_FLIGHT' : 'NOT_PENDING';
}
