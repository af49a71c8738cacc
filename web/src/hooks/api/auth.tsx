/**
 * The signed-out screens' calls: signing up with the e-mailed code, and a forgotten password.
 * Signing in and out are the session's (session.ts); the refresh cookie is spent by the API
 * client (api/client.ts).
 */
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import type { MutationHookOptions } from './query-keys';

export type RegisterBody = ApiBody<'/api/v1/auth/register', 'post'>;
export type VerifyEmailBody = ApiBody<'/api/v1/auth/verify-email-otp', 'post'>;
export type ResendCodeBody = ApiBody<'/api/v1/auth/resend-verify-email-code', 'post'>;
export type ForgotPasswordBody = ApiBody<'/api/v1/auth/forgot-password', 'post'>;
export type VerifyResetCodeBody = ApiBody<'/api/v1/auth/verify-reset-password-otp', 'post'>;
export type ResetPasswordBody = ApiBody<'/api/v1/auth/reset-password', 'post'>;

/** Creates an account; the API e-mails a 6-digit code. */
export function useRegister(options?: MutationHookOptions<ApiData<'/api/v1/auth/register', 'post'>, RegisterBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/register', { body })) });
}

/** Verifies the e-mail address with its code. */
export function useVerifyEmail(options?: MutationHookOptions<ApiData<'/api/v1/auth/verify-email-otp', 'post'>, VerifyEmailBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/verify-email-otp', { body })) });
}

/** Sends the e-mail code again. */
export function useResendEmailCode(options?: MutationHookOptions<ApiData<'/api/v1/auth/resend-verify-email-code', 'post'>, ResendCodeBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/resend-verify-email-code', { body })) });
}

/** Asks for a password reset code by e-mail. */
export function useForgotPassword(options?: MutationHookOptions<ApiData<'/api/v1/auth/forgot-password', 'post'>, ForgotPasswordBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/forgot-password', { body })) });
}

/** Trades the e-mailed code for a reset token. */
export function useVerifyResetCode(options?: MutationHookOptions<ApiData<'/api/v1/auth/verify-reset-password-otp', 'post'>, VerifyResetCodeBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/verify-reset-password-otp', { body })) });
}

/** Sets a new password with the reset token. */
export function useResetPassword(options?: MutationHookOptions<ApiData<'/api/v1/auth/reset-password', 'post'>, ResetPasswordBody>) {
  return useMutation({ ...options, mutationFn: (body) => unwrap(api.POST('/api/v1/auth/reset-password', { body })) });
}
