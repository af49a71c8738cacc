/**
 * Account use cases of the dashboard: sign-up, e-mail verification by one-time code, login,
 * password reset. Failed logins and code guesses are throttled per e-mail / account (throttle.ts);
 * password checks on unknown e-mails cost the same time.
 */
import { and, eq, isNull, ne } from 'drizzle-orm';
import { dashboardSessions } from '../db/schema-dashboard.ts';
import { accounts } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { createAccount, findAccountByEmail, findAccountById, userView, type AccountRow } from './accounts.ts';
import { recordAudit, type AuditActor } from './audit.ts';
import { consumeCode, consumeResetToken, issueCode, issueResetToken } from './codes.ts';
import { sendMail } from './mail.ts';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords.ts';
import { assertNotThrottled, clearFailures, consumeQuota, recordFailure } from './throttle.ts';
import { hasSecondFactor, proveSecondFactor } from './second-factor.ts';
import { openSession, revokeAccountSessions } from './tokens.ts';

/** Sign-up fields (validated by the route). */
export interface Registration {
  fullName: string;
  email: string;
  phone: string;
  password: string;
  country: string;
}

const loginKey = (email: string) => `login:${email.trim().toLowerCase()}`;

async function sendCodeMail(services: Services, account: AccountRow, purpose: 'VERIFY_EMAIL' | 'RESET_PASSWORD'): Promise<void> {
  const code = await issueCode(services, account.id, purpose);
  const minutes = services.config.otpTtlMinutes;
  const mail =
    purpose === 'VERIFY_EMAIL'
      ? {
          subject: 'Kolo : votre code de vérification',
          text: `Bonjour ${account.fullName},\n\nVotre code de vérification Kolo est : ${code}\nIl expire dans ${minutes} minutes.\n`,
        }
      : {
          subject: 'Kolo : réinitialisation de votre mot de passe',
          text: `Bonjour ${account.fullName},\n\nVotre code de réinitialisation Kolo est : ${code}\nIl expire dans ${minutes} minutes. Si vous n'êtes pas à l'origine de cette demande, ignorez ce message.\n`,
        };
  await sendMail(services, { to: account.email, ...mail });
}

/**
 * Creates a MERCHANT account. With verification on, it is PENDING_VERIFICATION and a code is
 * mailed; with it off (EMAIL_VERIFICATION_REQUIRED=false), it is ACTIVE at once.
 * Throws 409 EMAIL_ALREADY_EXISTS.
 */
export async function register(services: Services, input: Registration, actor: AuditActor): Promise<AccountRow> {
  const verify = services.config.emailVerificationRequired;
  const account = await createAccount(services, {
    ...input,
    role: 'MERCHANT',
    status: verify ? 'PENDING_VERIFICATION' : 'ACTIVE',
    emailVerified: false,
  });
  await recordAudit(services, { ...actor, actorId: account.id, actorRole: 'MERCHANT' }, {
    action: 'ACCOUNT_REGISTERED',
    targetType: 'ACCOUNT',
    targetId: account.id,
    after: { email: account.email, fullName: account.fullName, status: account.status },
  });
  if (verify) await sendCodeMail(services, account, 'VERIFY_EMAIL');
  return account;
}

/** Verifies the e-mail with its code and activates a pending account. */
export async function verifyEmail(services: Services, email: string, otp: string, actor: AuditActor): Promise<void> {
  const account = await findAccountByEmail(services.db, email);
  if (!account) throw new ApiError('USER_NOT_FOUND');
  if (account.emailVerified) throw new ApiError('ACCOUNT_ALREADY_VERIFIED');
  await consumeCode(services, account.id, 'VERIFY_EMAIL', otp);
  const status = account.status === 'PENDING_VERIFICATION' ? 'ACTIVE' : account.status;
  await services.db.update(accounts).set({ emailVerified: true, status, updatedAt: services.clock.now() }).where(eq(accounts.id, account.id));
  await recordAudit(services, { ...actor, actorId: account.id, actorRole: account.role }, {
    action: 'EMAIL_VERIFIED',
    targetType: 'ACCOUNT',
    targetId: account.id,
    before: { emailVerified: false, status: account.status },
    after: { emailVerified: true, status },
  });
}

/** Mails a new verification code (at most `authMaxFailures` per lockout window). */
export async function resendVerificationCode(services: Services, email: string): Promise<void> {
  const account = await findAccountByEmail(services.db, email);
  if (!account) throw new ApiError('USER_NOT_FOUND');
  if (account.emailVerified) throw new ApiError('ACCOUNT_ALREADY_VERIFIED');
  await consumeQuota(services, `resend:${account.id}`);
  await sendCodeMail(services, account, 'VERIFY_EMAIL');
}

/**
 * Logs in. Throws 429 while the e-mail or the client IP is locked, 401 INVALID_CREDENTIALS for an unknown e-mail
 * or a wrong password (both counted), then, only with the right password, 403
 * EMAIL_NOT_VERIFIED or ACCOUNT_NOT_ACTIVE. An account with a second factor also needs `otp` (a
 * TOTP code) or `recoveryCode`: without either 401 SECOND_FACTOR_REQUIRED, a wrong one 401
 * SECOND_FACTOR_INVALID (counted like a wrong password); the session starts with a fresh second factor.
 */
export async function login(
  services: Services,
  email: string,
  password: string,
  actor: AuditActor,
  secondFactor: { otp?: string | undefined; recoveryCode?: string | undefined } = {},
) {
  const key = loginKey(email);
  // Per client IP too, whatever the e-mail: one password tried against many accounts.
  const ipKey = actor.clientIp ? `login-ip:${actor.clientIp}` : null;
  await assertNotThrottled(services, key);
  if (ipKey) await assertNotThrottled(services, ipKey);
  const fail = async () => {
    await recordFailure(services, key);
    if (ipKey) await recordFailure(services, ipKey, services.config.authMaxFailuresPerIp);
  };
  const account = await findAccountByEmail(services.db, email);
  if (!account) {
    await burnPasswordCheck(password, services.config.passwordScryptLogN);
    await fail();
    throw new ApiError('INVALID_CREDENTIALS');
  }
  if (!(await verifyPassword(password, account.passwordHash))) {
    await fail();
    await recordAudit(services, { ...actor, actorId: account.id, actorRole: account.role }, {
      action: 'LOGIN_FAILED',
      targetType: 'ACCOUNT',
      targetId: account.id,
    });
    throw new ApiError('INVALID_CREDENTIALS');
  }
  if (account.status === 'PENDING_VERIFICATION') throw new ApiError('EMAIL_NOT_VERIFIED');
  if (account.status !== 'ACTIVE') throw new ApiError('ACCOUNT_NOT_ACTIVE');
  const twoFactor = await hasSecondFactor(services.db, account.id);
  if (twoFactor) {
    if (secondFactor.otp === undefined && secondFactor.recoveryCode === undefined) throw new ApiError('SECOND_FACTOR_REQUIRED');
    try {
      await proveSecondFactor(services, account.id, { code: secondFactor.otp, recoveryCode: secondFactor.recoveryCode });
    } catch (error) {
      await fail();
      throw error;
    }
  }
  await clearFailures(services, key);
  const tokens = await openSession(services, account, { secondFactor: twoFactor });
  await recordAudit(services, { ...actor, actorId: account.id, actorRole: account.role }, {
    action: 'LOGIN',
    targetType: 'ACCOUNT',
    targetId: account.id,
  });
  return { ...tokens, user: userView(account) };
}

/**
 * Mails a reset code. Unknown e-mails get the same answer (no account enumeration through
 * this route); sending is rate-limited per e-mail.
 */
export async function forgotPassword(services: Services, email: string): Promise<void> {
  await consumeQuota(services, `forgot:${email.trim().toLowerCase()}`);
  const account = await findAccountByEmail(services.db, email);
  if (!account || account.status === 'DELETED') return;
  await sendCodeMail(services, account, 'RESET_PASSWORD');
}

/** Checks a reset code and returns a single-use reset token (15 minutes). */
export async function verifyResetCode(services: Services, email: string, otp: string): Promise<string> {
  const account = await findAccountByEmail(services.db, email);
  if (!account) {
    // Same answer as a wrong code, and counted, so unknown e-mails cannot be told apart.
    await assertNotThrottled(services, `otp:RESET_PASSWORD:${email.trim().toLowerCase()}`);
    await recordFailure(services, `otp:RESET_PASSWORD:${email.trim().toLowerCase()}`);
    throw new ApiError('OTP_INVALID');
  }
  await consumeCode(services, account.id, 'RESET_PASSWORD', otp);
  return issueResetToken(services, account.id);
}

/** Sets a new password from a reset token; closes every session of the account. */
export async function resetPassword(services: Services, resetToken: string, newPassword: string, actor: AuditActor): Promise<void> {
  const accountId = await consumeResetToken(services, resetToken);
  const account = await findAccountById(services.db, accountId);
  if (!account) throw new ApiError('INVALID_RESET_TOKEN');
  const passwordHash = await hashPassword(newPassword, services.config.passwordScryptLogN);
  const now = services.clock.now();
  await services.db.update(accounts).set({ passwordHash, updatedAt: now }).where(eq(accounts.id, accountId));
  await revokeAccountSessions(services.db, accountId, 'PASSWORD_RESET', now);
  await clearFailures(services, loginKey(account.email));
  await recordAudit(services, { ...actor, actorId: accountId, actorRole: account.role }, {
    action: 'PASSWORD_RESET',
    targetType: 'ACCOUNT',
    targetId: accountId,
  });
}

/**
 * Changes the password of a logged-in account. A wrong current password is a 400
 * VALIDATION_ERROR on `currentPassword` (counted like a failed login). Other sessions are closed.
 */
export async function changePassword(
  services: Services,
  accountId: string,
  keepSessionId: string,
  currentPassword: string,
  newPassword: string,
  actor: AuditActor,
): Promise<void> {
  const account = await findAccountById(services.db, accountId);
  if (!account) throw new ApiError('USER_NOT_FOUND');
  const key = loginKey(account.email);
  await assertNotThrottled(services, key);
  if (!(await verifyPassword(currentPassword, account.passwordHash))) {
    await recordFailure(services, key);
    throw new ApiError('VALIDATION_ERROR', { data: { currentPassword: 'le mot de passe actuel est incorrect' } });
  }
  const passwordHash = await hashPassword(newPassword, services.config.passwordScryptLogN);
  const now = services.clock.now();
  await services.db.update(accounts).set({ passwordHash, updatedAt: now }).where(eq(accounts.id, accountId));
  await services.db
    .update(dashboardSessions)
    .set({ revokedAt: now, revokedReason: 'PASSWORD_CHANGED' })
    .where(and(eq(dashboardSessions.accountId, accountId), ne(dashboardSessions.id, keepSessionId), isNull(dashboardSessions.revokedAt)));
  await recordAudit(services, actor, { action: 'PASSWORD_CHANGED', targetType: 'ACCOUNT', targetId: accountId });
}
