/**
 * Refunds: a refund of one of my successful pay-ins, whole or part (`POST
 * /api/v1/merchants/transactions/{reference}/refund`). Whether a pay-in may be refunded, and how
 * much of it, is the transaction's `refundable` and `refundableAmount` (transactions.tsx).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { balancesQueryKeys } from './balances';
import { homeQueryKeys } from './home';
import { invalidate, type MutationHookOptions } from './query-keys';
import { transactionsQueryKeys } from './transactions';
import { webhooksQueryKeys } from './webhooks';

/** Amount (default: all that remains) and reason. */
export type RefundBody = ApiBody<'/api/v1/merchants/transactions/{reference}/refund', 'post'>;
/** The refund pay-out, PENDING. */
export type Refund = ApiData<'/api/v1/merchants/transactions/{reference}/refund', 'post'>;

/** Refunds the pay-in `reference`; then the transactions, balances, home and deliveries are read again. */
export function useRefund(reference: string, options?: MutationHookOptions<Refund, RefundBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/transactions/{reference}/refund', { params: { path: { reference } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [transactionsQueryKeys.all, balancesQueryKeys.all, homeQueryKeys.all, webhooksQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** The queued pay-out, now FAILED `PAYOUT_CANCELLED`. */
export type CancelledPayOut = ApiData<'/api/v1/merchants/transactions/{reference}/cancel', 'post'>;

/**
 * Cancels the pay-out `reference` while it waits for float (`queuedForFloat`); then the
 * transactions, balances, home and deliveries are read again.
 */
export function useCancelPayOut(reference: string, options?: MutationHookOptions<CancelledPayOut, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => unwrap(api.POST('/api/v1/merchants/transactions/{reference}/cancel', { params: { path: { reference } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [transactionsQueryKeys.all, balancesQueryKeys.all, homeQueryKeys.all, webhooksQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
