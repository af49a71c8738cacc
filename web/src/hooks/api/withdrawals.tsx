/**
 * Withdrawals: my withdrawal accounts (add, make default, remove), "withdraw now" to one of them,
 * and the automatic withdrawal schedule.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { balancesQueryKeys } from './balances';
import { homeQueryKeys } from './home';
import { invalidate, type MutationHookOptions, type QueryHookOptions } from './query-keys';
import { transactionsQueryKeys } from './transactions';

export type WithdrawalAccount = ApiData<'/api/v1/merchants/withdrawals/accounts'>[number];
/** Rail, number and name of a new account (the first one becomes the default). */
export type WithdrawalAccountBody = ApiBody<'/api/v1/merchants/withdrawals/accounts', 'post'>;
export type WithdrawBody = ApiBody<'/api/v1/merchants/withdrawals/withdraw', 'post'>;
export type Withdrawal = ApiData<'/api/v1/merchants/withdrawals/withdraw', 'post'>;
/** The schedule, or null when none was set (MANUAL). */
export type WithdrawalConfig = ApiData<'/api/v1/merchants/withdrawals/config'>;
export type WithdrawalConfigBody = ApiBody<'/api/v1/merchants/withdrawals/config', 'put'>;

export const withdrawalsQueryKeys = {
  all: ['withdrawals'] as const,
  accounts: () => [...withdrawalsQueryKeys.all, 'accounts'] as const,
  config: () => [...withdrawalsQueryKeys.all, 'config'] as const,
};

/** My withdrawal accounts. */
export function useWithdrawalAccounts(options?: QueryHookOptions<WithdrawalAccount[]>) {
  return useQuery({ ...options, queryKey: withdrawalsQueryKeys.accounts(), queryFn: () => unwrap(api.GET('/api/v1/merchants/withdrawals/accounts')) });
}

/** Adds a withdrawal account. */
export function useCreateWithdrawalAccount(options?: MutationHookOptions<WithdrawalAccount, WithdrawalAccountBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/withdrawals/accounts', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [withdrawalsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Makes account `id` (the variable) the default one. */
export function useSetDefaultWithdrawalAccount(options?: MutationHookOptions<WithdrawalAccount, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (id) => unwrap(api.PATCH('/api/v1/merchants/withdrawals/accounts/{id}/default', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [withdrawalsQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Removes account `id` (the variable). Refused or not, the list is read again: it may be stale (removed elsewhere). */
export function useDeleteWithdrawalAccount(options?: MutationHookOptions<void, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (id) => expectNoContent(api.DELETE('/api/v1/merchants/withdrawals/accounts/{id}', { params: { path: { id } } })),
    onSettled: async (...args) => {
      await invalidate(queryClient, [withdrawalsQueryKeys.all]);
      await options?.onSettled?.(...args);
    },
  });
}

/** Withdraws now; then the balances, transactions and home are read again. */
export function useWithdraw(options?: MutationHookOptions<Withdrawal, WithdrawBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/withdrawals/withdraw', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [balancesQueryKeys.all, transactionsQueryKeys.all, homeQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** The automatic withdrawal schedule. */
export function useWithdrawalConfig(options?: QueryHookOptions<WithdrawalConfig>) {
  return useQuery({ ...options, queryKey: withdrawalsQueryKeys.config(), queryFn: () => unwrap(api.GET('/api/v1/merchants/withdrawals/config')) });
}

/** Saves the automatic withdrawal schedule. */
export function useUpdateWithdrawalConfig(options?: MutationHookOptions<WithdrawalConfig, WithdrawalConfigBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PUT('/api/v1/merchants/withdrawals/config', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [withdrawalsQueryKeys.config()]);
      await options?.onSuccess?.(...args);
    },
  });
}
