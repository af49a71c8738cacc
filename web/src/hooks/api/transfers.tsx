/**
 * Transfers (pay-outs) from one of my applications: the fee the API quotes before sending, and
 * sending one with an idempotency key, so a double click or a retry sends it once.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData, ApiQuery } from '../../api/types';
import { balancesQueryKeys } from './balances';
import { homeQueryKeys } from './home';
import { invalidate, type MutationHookOptions } from './query-keys';
import { transactionsQueryKeys } from './transactions';

/** The application, and amount, currency, rail and environment of the transfer to quote. */
export type TransferFeeInput = ApiQuery<'/api/v1/merchants/apps/{appId}/transfer/fee'> & { appId: string };
/** The fee, and the total that would leave the available balance. */
export type TransferFee = ApiData<'/api/v1/merchants/apps/{appId}/transfer/fee'>;
/** The application, the idempotency key (one per reviewed form) and the transfer. */
export type SendTransferInput = { appId: string; idempotencyKey: string; body: ApiBody<'/api/v1/merchants/apps/{appId}/transfer', 'post'> };
export type SentTransfer = ApiData<'/api/v1/merchants/apps/{appId}/transfer', 'post'>;

/** Asks the API what a transfer would cost now (nothing is sent). */
export function useQuoteTransfer(options?: MutationHookOptions<TransferFee, TransferFeeInput>) {
  return useMutation({
    ...options,
    mutationFn: ({ appId, ...query }) => unwrap(api.GET('/api/v1/merchants/apps/{appId}/transfer/fee', { params: { path: { appId }, query } })),
  });
}

/** Sends a transfer; then the balances, transactions and home are read again. */
export function useSendTransfer(options?: MutationHookOptions<SentTransfer, SendTransferInput>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ appId, idempotencyKey, body }) =>
      unwrap(api.POST('/api/v1/merchants/apps/{appId}/transfer', { params: { path: { appId } }, headers: { 'Idempotency-Key': idempotencyKey }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [balancesQueryKeys.all, transactionsQueryKeys.all, homeQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
