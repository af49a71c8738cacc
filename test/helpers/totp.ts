/**
 * TOTP for tests: enrols a signed-in person over HTTP like an authenticator app would (reads the
 * `otpauth://` URI, answers its first code) and computes later codes at the harness clock's time.
 * The codes come from `otpauth`, the library Kolo checks them with, configured from the URI alone.
 */
import { URI, type TOTP } from 'otpauth';
import type { Harness } from '../harness.ts';

/** An enrolled authenticator: the next code at the harness's time, and the recovery codes. */
export interface Authenticator {
  totp: TOTP;
  recoveryCodes: string[];
  /** The code of the current 30-second step (advance the clock 30 s between two uses). */
  code(): string;
}

/** Enrols the person of `accessToken`; throws with the answer when a step fails. */
export async function enrolTotp(h: Harness, accessToken: string): Promise<Authenticator> {
  // The bearer header by hand: dashboard.ts imports this file (`createStaffAccount`).
  const authorization = `Bearer ${accessToken}`;
  const start = await h.request('POST', '/api/v1/merchants/me/two-factor', { headers: { authorization } });
  if (start.status !== 201) throw new Error(`enrolment start: ${start.status} ${start.text}`);
  const totp = URI.parse(start.json.data.otpauthUri) as TOTP;
  const code = () => totp.generate({ timestamp: h.clock.now().getTime() });
  const confirm = await h.request('POST', '/api/v1/merchants/me/two-factor/confirm', { headers: { authorization }, body: { code: code() } });
  if (confirm.status !== 200) throw new Error(`enrolment confirm: ${confirm.status} ${confirm.text}`);
  h.clock.advance(30_000); // the enrolment's code is spent: the next one is a step later
  return { totp, recoveryCodes: confirm.json.data.recoveryCodes, code };
}
