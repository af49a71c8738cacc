/**
 * Dashboard account routes, at the paths SharePay's dashboard calls: public sign-up, login and
 * reset routes under /api/v1/auth, and the bearer-authenticated profile under /api/v1/merchants/me.
 * Thin adapters over src/dashboard/auth.ts.
 */
import fastifyCookie from '@fastify/cookie';
import { eq } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findAccountById, profileView, userView } from '../../dashboard/accounts.ts';
import { changedFields, recordAudit } from '../../dashboard/audit.ts';
import {
  changePassword,
  forgotPassword,
  login,
  register,
  resendVerificationCode,
  resetPassword,
  verifyEmail,
  verifyResetCode,
} from '../../dashboard/auth.ts';
import { closeSession, refreshSession } from '../../dashboard/tokens.ts';
import { accounts } from '../../db/schema.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { auditActor, dashboardAuthHook, requireAccount } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, bearerSecurity as bearerRequirement, errorResponses, publicSecurity, success } from '../schemas/openapi.ts';
import { EXAMPLE_ACCESS_TOKEN, EXAMPLE_IDS, EXAMPLE_PROFILE, EXAMPLE_REFRESH_TOKEN } from '../schemas/examples.ts';
import {
  changePasswordRequest,
  emailOtpRequest,
  emailRequest,
  loginData,
  loginRequest,
  meData,
  profileUpdateRequest,
  registerRequest,
  sessionRefreshRequest,
  resetRequest,
  resetTokenData,
  tokenPairData,
  ts,
} from '../schemas/dashboard.ts';

/** A success answer without data, with its message. */
const nullData = (description: string, message: string) => success(z.null(), description, { message, data: null });
const tags = ['Dashboard : authentification'];
/** OpenAPI security of bearer-authenticated routes. */
export const bearerSecurity = bearerRequirement;
const security = publicSecurity;
const EMAIL = EXAMPLE_PROFILE.email;
const tokenPair = { accessToken: EXAMPLE_ACCESS_TOKEN, refreshToken: EXAMPLE_REFRESH_TOKEN };
const meExample = { ...EXAMPLE_PROFILE, serverTimeZone: 'Africa/Douala' };

function profile(row: Parameters<typeof profileView>[0]) {
  const view = profileView(row);
  return { ...view, createdAt: ts(view.createdAt), updatedAt: ts(view.updatedAt), serverTimeZone: serverTimeZone() };
}

/** The IANA time zone of this process (the one of the API's zone-less timestamps). */
function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The refresh-token cookie: the web app's copy of the refresh token, out of reach of scripts
 * (httpOnly), sent only from Kolo's own pages (SameSite=Strict), so the app keeps its access
 * token in memory and nothing in storage. It is set twice with one value, once per path: the
 * auth routes (refresh, logout) and the app's pages (/app, whose home page renews the session
 * itself: src/http/web-app.ts); no other route receives it.
 */
export const REFRESH_COOKIE = 'kolo_refresh';
/** The paths of the refresh cookie's two copies. */
export const REFRESH_COOKIE_PATHS = ['/api/v1/auth', '/app'] as const;

/**
 * Sets both copies of the refresh cookie to `refreshToken` (rotated with it), for
 * `refreshTokenTtlDays`; Secure behind an https PUBLIC_BASE_URL.
 */
export function setRefreshCookie(services: Pick<Services, 'config'>, reply: FastifyReply, refreshToken: string): void {
  for (const path of REFRESH_COOKIE_PATHS) {
    reply.setCookie(REFRESH_COOKIE, refreshToken, {
      httpOnly: true,
      sameSite: 'strict',
      secure: services.config.publicBaseUrl.startsWith('https:'),
      path,
      maxAge: services.config.refreshTokenTtlDays * 86_400,
    });
  }
}

/** Registers /api/v1/auth/* (public). */
export async function dashboardAuthRoutes(app: FastifyInstance, services: Services): Promise<void> {
  await app.register(fastifyCookie);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => services.clock.now();
  // The body's token when sent (API clients), else the cookie's (the web app); '' is refused
  // by the token's own format check (401 INVALID_REFRESH_TOKEN).
  const refreshTokenOf = (request: FastifyRequest, body: { refreshToken?: string | undefined }) =>
    body.refreshToken ?? request.cookies[REFRESH_COOKIE] ?? '';

  r.post(
    '/api/v1/auth/register',
    {
      schema: {
        tags,
        summary: 'Créer un compte marchand',
        operationId: 'register',
        security,
        body: registerRequest,
        response: {
          201: nullData('Compte créé ; un code de vérification est envoyé par e-mail (sauf si la vérification est désactivée)', 'Compte créé. Un code de vérification a été envoyé à votre adresse e-mail.'),
          ...errorResponses(...BODY_ERRORS, 'EMAIL_ALREADY_EXISTS', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request, reply) => {
      const account = await register(request.services, request.body, auditActor(request));
      const message =
        account.status === 'ACTIVE'
          ? 'Compte créé. Vous pouvez vous connecter.'
          : 'Compte créé. Un code de vérification a été envoyé à votre adresse e-mail.';
      return reply.code(201).send(ok(null, message, now()));
    },
  );

  r.post(
    '/api/v1/auth/verify-email-otp',
    {
      schema: {
        tags,
        summary: "Vérifier l'adresse e-mail avec le code reçu",
        operationId: 'verifyEmail',
        security,
        body: emailOtpRequest,
        response: {
          200: nullData('Adresse vérifiée', 'Adresse e-mail vérifiée. Vous pouvez vous connecter.'),
          ...errorResponses(...BODY_ERRORS, 'USER_NOT_FOUND', 'ACCOUNT_ALREADY_VERIFIED', 'OTP_NOT_FOUND', 'OTP_INVALID', 'OTP_EXPIRED', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      await verifyEmail(request.services, request.body.email, request.body.otp, auditActor(request));
      return ok(null, 'Adresse e-mail vérifiée. Vous pouvez vous connecter.', now());
    },
  );

  r.post(
    '/api/v1/auth/resend-verify-email-code',
    {
      schema: {
        tags,
        summary: 'Renvoyer le code de vérification',
        operationId: 'resendVerificationCode',
        security,
        body: emailRequest,
        response: {
          200: nullData('Nouveau code envoyé', 'Un nouveau code de vérification a été envoyé.'),
          ...errorResponses(...BODY_ERRORS, 'USER_NOT_FOUND', 'ACCOUNT_ALREADY_VERIFIED', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      await resendVerificationCode(request.services, request.body.email);
      return ok(null, 'Un nouveau code de vérification a été envoyé.', now());
    },
  );

  r.post(
    '/api/v1/auth/login',
    {
      schema: {
        tags,
        summary: 'Se connecter',
        description: `Rend le jeton d'accès (à envoyer en Authorization: Bearer) et le jeton de rafraîchissement, aussi posé en cookie httpOnly \`${REFRESH_COOKIE}\`.`,
        operationId: 'login',
        security,
        body: loginRequest,
        response: {
          200: success(loginData, 'Connecté : la paire de jetons et le compte', {
            message: 'Connexion réussie.',
            data: {
              ...tokenPair,
              user: { accountId: EXAMPLE_IDS.merchant, email: EMAIL, fullName: EXAMPLE_PROFILE.fullName, role: 'MERCHANT', status: 'ACTIVE', kycLevel: 'NONE' },
            },
          }),
          ...errorResponses(...BODY_ERRORS, 'INVALID_CREDENTIALS', 'SECOND_FACTOR_REQUIRED', 'SECOND_FACTOR_INVALID', 'EMAIL_NOT_VERIFIED', 'ACCOUNT_NOT_ACTIVE', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request, reply) => {
      const result = await login(request.services, request.body.email, request.body.password, auditActor(request), { otp: request.body.otp, recoveryCode: request.body.recoveryCode });
      setRefreshCookie(services, reply, result.refreshToken);
      return ok(result, 'Connexion réussie.', now());
    },
  );

  r.post(
    '/api/v1/auth/refresh-token',
    {
      schema: {
        tags,
        summary: 'Échanger un jeton de rafraîchissement (usage unique) contre une nouvelle paire',
        description: `Le jeton est celui du corps, ou à défaut celui du cookie httpOnly \`${REFRESH_COOKIE}\` posé par la connexion (application web) ; le cookie est renouvelé.`,
        operationId: 'refreshSession',
        security,
        body: sessionRefreshRequest,
        response: {
          200: success(tokenPairData, 'Une nouvelle paire ; l’ancien jeton de rafraîchissement ne vaut plus', { message: 'Session prolongée.', data: tokenPair }),
          ...errorResponses(...BODY_ERRORS, 'INVALID_REFRESH_TOKEN', 'COMPROMISED_SESSION', 'EXPIRED_SESSION', 'ACCOUNT_NOT_ACTIVE'),
        },
      },
    },
    async (request, reply) => {
      const pair = await refreshSession(request.services, refreshTokenOf(request, request.body));
      setRefreshCookie(services, reply, pair.refreshToken);
      return ok(pair, 'Session prolongée.', now());
    },
  );

  r.post(
    '/api/v1/auth/logout',
    {
      schema: {
        tags,
        summary: 'Se déconnecter (ferme la session)',
        description: `Le jeton est celui du corps, ou à défaut celui du cookie \`${REFRESH_COOKIE}\`, qui est effacé.`,
        operationId: 'logout',
        security,
        body: sessionRefreshRequest,
        response: {
          200: nullData('Session fermée', 'Déconnexion réussie.'),
          ...errorResponses(...BODY_ERRORS, 'INVALID_REFRESH_TOKEN', 'COMPROMISED_SESSION', 'EXPIRED_SESSION', 'ACCOUNT_NOT_ACTIVE'),
        },
      },
    },
    async (request, reply) => {
      const session = await closeSession(request.services, refreshTokenOf(request, request.body));
      for (const path of REFRESH_COOKIE_PATHS) reply.clearCookie(REFRESH_COOKIE, { path });
      await recordAudit(request.services, { ...auditActor(request), actorId: session.accountId }, {
        action: 'LOGOUT',
        targetType: 'SESSION',
        targetId: session.sessionId,
      });
      return ok(null, 'Déconnexion réussie.', now());
    },
  );

  r.post(
    '/api/v1/auth/forgot-password',
    {
      schema: {
        tags,
        summary: 'Demander un code de réinitialisation du mot de passe',
        description: "La même réponse que le compte existe ou non (pour ne pas révéler les adresses inscrites).",
        operationId: 'forgotPassword',
        security,
        body: emailRequest,
        response: {
          200: nullData('Code envoyé si le compte existe', 'Si un compte existe pour cette adresse, un code de réinitialisation a été envoyé.'),
          ...errorResponses(...BODY_ERRORS, 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      await forgotPassword(request.services, request.body.email);
      return ok(null, 'Si un compte existe pour cette adresse, un code de réinitialisation a été envoyé.', now());
    },
  );

  r.post(
    '/api/v1/auth/verify-reset-password-otp',
    {
      schema: {
        tags,
        summary: 'Vérifier le code de réinitialisation',
        operationId: 'verifyResetCode',
        security,
        body: emailOtpRequest,
        response: {
          200: success(resetTokenData, 'Code valide : le jeton de réinitialisation', {
            message: 'Code vérifié. Choisissez un nouveau mot de passe.',
            data: { resetToken: 'rst_0123456789abcdef0123456789abcdef' },
          }),
          ...errorResponses(...BODY_ERRORS, 'USER_NOT_FOUND', 'OTP_NOT_FOUND', 'OTP_INVALID', 'OTP_EXPIRED', 'INVALID_RESET_TOKEN', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      const resetToken = await verifyResetCode(request.services, request.body.email, request.body.otp);
      return ok({ resetToken }, 'Code vérifié. Choisissez un nouveau mot de passe.', now());
    },
  );

  r.post(
    '/api/v1/auth/reset-password',
    {
      schema: {
        tags,
        summary: 'Choisir un nouveau mot de passe',
        operationId: 'resetPassword',
        security,
        body: resetRequest,
        response: {
          200: nullData('Mot de passe changé ; les sessions ouvertes sont fermées', 'Mot de passe réinitialisé. Vous pouvez vous connecter.'),
          ...errorResponses(...BODY_ERRORS, 'INVALID_RESET_TOKEN', 'USER_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      await resetPassword(request.services, request.body.resetToken, request.body.newPassword, auditActor(request));
      return ok(null, 'Mot de passe réinitialisé. Vous pouvez vous connecter.', now());
    },
  );
}

/** Registers /api/v1/merchants/me* (bearer). */
export async function dashboardProfileRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const now = () => services.clock.now();
  const ptags = ['Dashboard : profil'];

  r.get(
    '/api/v1/merchants/me',
    {
      schema: {
        tags: ptags,
        summary: 'Mon profil',
        operationId: 'getMyProfile',
        security: bearerSecurity,
        response: { 200: success(meData, 'Mon profil', { message: 'Profil récupéré.', data: meExample }), ...errorResponses(...BEARER_ERRORS, 'USER_NOT_FOUND') },
      },
    },
    async (request) => {
      const row = await findAccountById(services.db, requireAccount(request).personId);
      if (!row) throw new ApiError('USER_NOT_FOUND');
      return ok(profile(row), 'Profil récupéré.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/me',
    {
      schema: {
        tags: ptags,
        summary: 'Modifier mon profil',
        operationId: 'updateMyProfile',
        security: bearerSecurity,
        body: profileUpdateRequest,
        response: {
          200: success(meData, 'Le profil modifié', { message: 'Profil mis à jour.', data: meExample }),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'USER_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const before = await findAccountById(services.db, account.personId);
      if (!before) throw new ApiError('USER_NOT_FOUND');
      const body = request.body;
      const changes: Partial<typeof accounts.$inferInsert> = {};
      if (body.fullName !== undefined) changes.fullName = body.fullName;
      if (body.phone !== undefined) changes.phone = body.phone;
      if (body.country !== undefined) changes.country = body.country;
      if (body.avatarUrl !== undefined) changes.avatarUrl = body.avatarUrl;
      if (body.language !== undefined) changes.language = body.language;
      // A changed phone number is no longer verified.
      if (changes.phone !== undefined && changes.phone !== before.phone) changes.phoneVerified = false;
      const [after] = await services.db
        .update(accounts)
        .set({ ...changes, updatedAt: now() })
        .where(eq(accounts.id, account.personId))
        .returning();
      await recordAudit(request.services, auditActor(request), {
        action: 'PROFILE_UPDATED',
        targetType: 'ACCOUNT',
        targetId: account.personId,
        ...changedFields(userAndProfile(before), userAndProfile(after!)),
      });
      return ok(profile(after!), 'Profil mis à jour.', now());
    },
  );

  r.put(
    '/api/v1/merchants/me/password',
    {
      schema: {
        tags: ptags,
        summary: 'Changer mon mot de passe (ferme mes autres sessions)',
        operationId: 'changeMyPassword',
        security: bearerSecurity,
        body: changePasswordRequest,
        response: {
          200: nullData('Mot de passe changé', 'Mot de passe modifié.'),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'INVALID_CREDENTIALS', 'USER_NOT_FOUND', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      await changePassword(request.services, account.personId, account.sessionId, request.body.currentPassword, request.body.newPassword, auditActor(request));
      return ok(null, 'Mot de passe modifié.', now());
    },
  );
}

function userAndProfile(row: Parameters<typeof profileView>[0]): Record<string, unknown> {
  const { fullName, phone, country, avatarUrl, language } = profileView(row);
  return { ...userView(row), fullName, phone, country, avatarUrl, language };
}
