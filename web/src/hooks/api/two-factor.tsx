/**
 * My second factor (TOTP): its state, starting and confirming the enrolment (the recovery codes
 * come back once), and confirming it before a sensitive action (fresh for 5 minutes).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type TwoFactorState = ApiData<'/api/v1/merchants/me/two-factor'>;
export type TwoFactorSecret = ApiData<'/api/v1/merchants/me/two-factor', 'post'>;
export type VerifyBody = ApiBody<'/api/v1/merchants/me/two-factor/verify', 'post'>;

export const twoFactorQueryKeys = queryKeysFactory('two-factor');

/** Whether my second factor is enabled, and whether my role requires it. */
export function useTwoFactor(options?: QueryHookOptions<TwoFactorState>) {
  return useQuery({ ...options, queryKey: twoFactorQueryKeys.lists(), queryFn: () => unwrap(api.GET('/api/v1/merchants/me/two-factor')) });
}

/** Starts an enrolment: the secret and the otpauth:// URI of the QR code. */
export function useStartTwoFactor(options?: MutationHookOptions<TwoFactorSecret, void>) {
  return useMutation({ ...options, mutationFn: () => unwrap(api.POST('/api/v1/merchants/me/two-factor')) });
}

/** Confirms the enrolment with a first code; answers the recovery codes (shown once). */
export function useConfirmTwoFactor(options?: MutationHookOptions<ApiData<'/api/v1/merchants/me/two-factor/confirm', 'post'>, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (code) => unwrap(api.POST('/api/v1/merchants/me/two-factor/confirm', { body: { code } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [twoFactorQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Confirms my second factor before a sensitive action. */
export function useVerifyTwoFactor(options?: MutationHookOptions<ApiData<'/api/v1/merchants/me/two-factor/verify', 'post'>, VerifyBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/me/two-factor/verify', { body })) });
}
