/**
 * The calls the session makes outside any screen (auth/session.tsx, the language switch): signing
 * in and out, reading the profile at sign-in, saving the language. Plain functions, not hooks:
 * the shell loads them on every first page, and they need none of TanStack Query's machinery,
 * which stays in the screens' chunks.
 */
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';

export type LoginBody = ApiBody<'/api/v1/auth/login', 'post'>;
export type Profile = ApiData<'/api/v1/merchants/me'>;
export type Language = NonNullable<ApiBody<'/api/v1/merchants/me', 'patch'>['language']>;

/** Signs in: the access token and the account (the API also sets the refresh cookie). */
export function createSession(body: LoginBody): Promise<ApiData<'/api/v1/auth/login', 'post'>> {
  return unwrap(api.POST('/api/v1/auth/login', { body }));
}

/** Signs out: the API revokes the refresh token and clears its cookie. Failures are the caller's to ignore. */
export async function closeSession(): Promise<void> {
  await api.POST('/api/v1/auth/logout', { body: {} });
}

/** My profile (it also names the server's time zone). */
export function fetchProfile(): Promise<Profile> {
  return unwrap(api.GET('/api/v1/merchants/me'));
}

/**
 * Saves the signed-in account's language choice with the API. A failure is not shown: the
 * choice still applies to this page, and the previous one comes back at the next login.
 */
export function saveLanguage(language: Language): void {
  void unwrap(api.PATCH('/api/v1/merchants/me', { body: { language } })).catch(() => undefined);
}
