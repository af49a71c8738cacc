/**
 * Transactions: the filtered list (pages of the current environment), one transaction with its
 * history and what the API says may be done with it (`refundable`, `refundableAmount`), "ask the
 * operator now" (status check) and the CSV export of a filtered list.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiFailure, api, unwrap } from '../../api/client';
import type { ApiData, ApiQuery } from '../../api/types';
import { balancesQueryKeys } from './balances';
import { homeQueryKeys } from './home';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';
import { webhooksQueryKeys } from './webhooks';

/** Filters and page of the list, as the API reads them. */
export type TransactionListQuery = ApiQuery<'/api/v1/merchants/transactions'>;
/** Filters of the CSV export (the list's, without the page). */
export type TransactionExportQuery = ApiQuery<'/api/v1/merchants/transactions/export'>;
export type TransactionPage = ApiData<'/api/v1/merchants/transactions'>;
/** A transaction as lists show it. */
export type TransactionItem = TransactionPage['content'][number];
/** One transaction with its history. */
export type Transaction = ApiData<'/api/v1/merchants/transactions/{transactionId}'>;
export type TransactionStatus = NonNullable<TransactionListQuery['status']>;
export type TransactionType = NonNullable<TransactionListQuery['type']>;

export const transactionsQueryKeys = queryKeysFactory<'transactions', TransactionListQuery>('transactions');

/** A page of transactions; the previous page stays shown while the next one loads. */
export function useTransactions(query: TransactionListQuery, options?: QueryHookOptions<TransactionPage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: transactionsQueryKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/transactions', { params: { query } })),
  });
}

/** One of my transactions, by reference (or UUID). */
export function useTransaction(reference: string, options?: QueryHookOptions<Transaction>) {
  return useQuery({
    ...options,
    queryKey: transactionsQueryKeys.detail(reference),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/transactions/{transactionId}', { params: { path: { transactionId: reference } } })),
  });
}

/**
 * Asks the operator now about transaction `reference`; its answer replaces the shown
 * transaction, and a final status refreshes what it moved (lists, balances, home, deliveries).
 */
export function useCheckTransactionStatus(reference: string, options?: MutationHookOptions<Transaction, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => unwrap(api.POST('/api/v1/merchants/transactions/{transactionId}/status-check', { params: { path: { transactionId: reference } } })),
    onSuccess: async (...args) => {
      const [transaction] = args;
      queryClient.setQueryData(transactionsQueryKeys.detail(reference), transaction);
      if (transaction.status !== 'PENDING') {
        await invalidate(queryClient, [transactionsQueryKeys.lists(), balancesQueryKeys.all, homeQueryKeys.all, webhooksQueryKeys.all]);
      }
      await options?.onSuccess?.(...args);
    },
  });
}

/** A CSV export: the file and the name the API gives it. */
export interface TransactionExport {
  file: Blob;
  fileName: string;
}

/** Exports the transactions matching the variable (filters) as CSV. */
export function useExportTransactions(options?: MutationHookOptions<TransactionExport, TransactionExportQuery>) {
  return useMutation({
    ...options,
    mutationFn: async (query) => {
      const { data, response } = await api.GET('/api/v1/merchants/transactions/export', { params: { query }, parseAs: 'blob' });
      if (!response.ok || !data) throw new ApiFailure(response.status, 'INTERNAL_SERVER_ERROR', null);
      const fileName = /filename="?([^";]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'transactions.csv';
      return { file: data as Blob, fileName };
    },
  });
}
