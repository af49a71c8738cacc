/**
 * Dashboard routes of the signed-in person's second factor (`/api/v1/merchants/me/two-factor…`,
 * bearer): its state, enrolment (secret and `otpauth://` URI for the QR code, then a first code
 * that enables it and returns the recovery codes once), step-up (a code that makes the session's
 * second factor fresh for 5 minutes) and disabling it (not for a role that requires it).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findAccountById } from '../../dashboard/accounts.ts';
import { confirmEnrolment, disableSecondFactor, markSecondFactor, proveSecondFactor, startEnrolment, STEP_UP_MS } from '../../dashboard/second-factor.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { auditActor, dashboardAuthHook, requireAccount } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { ts } from '../schemas/dashboard.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { bearerSecurity } from './dashboard-auth.ts';

const code = z.string().trim().regex(/^\d{6}$/, { message: 'doit être un code de 6 chiffres' });
const proof = z
  .object({ code: code.optional(), recoveryCode: z.string().trim().min(1).max(20).optional() })
  .refine((body) => body.code !== undefined || body.recoveryCode !== undefined, { message: 'indiquez code ou recoveryCode', path: ['code'] })
  .meta({ examples: [{ code: '123456' }] });

/** Registers /api/v1/merchants/me/two-factor…. */
export async function dashboardTwoFactorRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Dashboard : connexion à deux facteurs'];
  const security = bearerSecurity;
  const now = () => services.clock.now();
  const base = '/api/v1/merchants/me/two-factor';

  r.get(
    base,
    {
      schema: {
        tags,
        summary: 'État de ma connexion à deux facteurs',
        operationId: 'getTwoFactor',
        security,
        response: {
          200: success(z.object({ enabled: z.boolean(), required: z.boolean() }), 'Activée ; exigée par mon rôle', { message: 'État du second facteur.', data: { enabled: false, required: true } }),
          ...errorResponses(...BEARER_ERRORS),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      return ok({ enabled: account.hasSecondFactor, required: account.secondFactorRequired }, 'État du second facteur.', now());
    },
  );

  r.post(
    base,
    {
      schema: {
        tags,
        summary: "Commencer l'activation : le secret et l'URI otpauth:// du QR code",
        description: "Le secret (base32) est à saisir dans l'application d'authentification, ou l'URI à lire en QR code ; un premier code l'active (…/confirm).",
        operationId: 'startTwoFactor',
        security,
        response: {
          201: success(z.object({ secret: z.string(), otpauthUri: z.string() }), 'Le secret partagé', {
            message: 'Secret créé : confirmez avec un premier code.',
            data: { secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', otpauthUri: 'otpauth://totp/Kolo:awa%40boutique.example.cm?issuer=Kolo&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30' },
          }),
          ...errorResponses(...BEARER_ERRORS, 'SECOND_FACTOR_ALREADY_ENABLED'),
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      const person = await findAccountById(services.db, account.personId);
      const data = await startEnrolment(request.services, { id: account.personId, email: person?.email ?? account.email });
      return reply.code(201).send(ok(data, 'Secret créé : confirmez avec un premier code.', now()));
    },
  );

  r.post(
    `${base}/confirm`,
    {
      schema: {
        tags,
        summary: "Activer avec un premier code ; rend les codes de secours (une seule fois)",
        operationId: 'confirmTwoFactor',
        security,
        body: z.object({ code }).meta({ examples: [{ code: '123456' }] }),
        response: {
          200: success(z.object({ recoveryCodes: z.array(z.string()) }), 'Les 10 codes de secours, affichés une seule fois', { message: 'Connexion à deux facteurs activée.', data: { recoveryCodes: ['0a1b2-c3d4e'] } }),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'SECOND_FACTOR_INVALID'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const data = await confirmEnrolment(request.services, account.personId, request.body.code, auditActor(request));
      await markSecondFactor(request.services, account.sessionId);
      return ok(data, 'Connexion à deux facteurs activée.', now());
    },
  );

  r.post(
    `${base}/verify`,
    {
      schema: {
        tags,
        summary: 'Confirmer mon second facteur pour une action sensible (valable 5 minutes)',
        description: 'Virement, compte de retrait, clé API, URL de webhook et approbation de lot demandent un second facteur confirmé depuis moins de 5 minutes.',
        operationId: 'verifyTwoFactor',
        security,
        body: proof,
        response: {
          200: success(z.object({ freshUntil: z.string() }), 'Jusqu’à quand les actions sensibles sont permises', { message: 'Second facteur confirmé.', data: { freshUntil: '2026-11-20T10:05:00.000' } }),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'SECOND_FACTOR_INVALID'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      await proveSecondFactor(request.services, account.personId, request.body);
      await markSecondFactor(request.services, account.sessionId);
      return ok({ freshUntil: ts(new Date(now().getTime() + STEP_UP_MS)) }, 'Second facteur confirmé.', now());
    },
  );

  r.delete(
    base,
    {
      schema: {
        tags,
        summary: 'Désactiver ma connexion à deux facteurs (un code la confirme)',
        operationId: 'disableTwoFactor',
        security,
        body: proof,
        response: { 204: noContent, ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'SECOND_FACTOR_INVALID', 'SECOND_FACTOR_ENROLMENT_REQUIRED') },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      if (account.secondFactorRequired) throw new ApiError('SECOND_FACTOR_ENROLMENT_REQUIRED');
      await disableSecondFactor(request.services, account.personId, request.body, auditActor(request));
      return reply.code(204).send(undefined);
    },
  );
}
