/**
 * Administration routes, at the paths SharePay's dashboard calls, bearer-authenticated. Reads of
 * merchants and rails: ADMIN and SUPPORT; every write, staff management and the audit log: ADMIN
 * only (403 ACCESS_DENIED otherwise).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { profileView } from '../../dashboard/accounts.ts';
import {
  ACCOUNT_STATUSES,
  KYC_LEVELS,
  accountWithRole,
  createProvider,
  createStaff,
  listProviders,
  merchantOverview,
  pageAccounts,
  setAccountStatus,
  setKycLevel,
  toggleProvider,
  updateProvider,
} from '../../dashboard/admin.ts';
import { listAudit } from '../../dashboard/audit.ts';
import type { Services } from '../../services.ts';
import { adminOnly, auditActor, dashboardAuthHook, staffRead } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { currencySchema, fr, requiredText, uuidParam } from '../schemas/common.ts';
import { idParams, pageOf, pageQuery, profileData, toPage, ts } from '../schemas/dashboard.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';
import { BODY_ERRORS, STAFF_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS, EXAMPLE_PROFILE, EXAMPLE_TIME, examplePage } from '../schemas/examples.ts';
import { deleteFeeOverride, listFeeOverrides, setFeeOverride, type FeeOverrideView } from '../../dashboard/fee-overrides.ts';

/** Codes of every administration route: the bearer, and a role other than the route's (403 ACCESS_DENIED). */
const STAFF = { ...EXAMPLE_PROFILE, id: EXAMPLE_IDS.staff, fullName: 'Paul Essomba', email: 'paul@kolo.example.cm', role: 'SUPPORT' as const, phone: null, country: null };
const PROVIDER = {
  id: EXAMPLE_IDS.provider,
  code: 'MTN_MOMO_CM',
  name: 'MTN Mobile Money Cameroun',
  operator: 'MTN_MOMO',
  type: 'MOBILE_MONEY',
  country: 'CM',
  currency: 'XAF',
  feePercentage: 1.5,
  feeFixed: 0,
  payOutFeePercentage: 0,
  payOutFeeFixed: 0,
  settlementDelaySeconds: 0,
  minAmount: 100,
  maxAmount: 1000000,
  pendingTimeoutSeconds: 900,
  active: true,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};
const FEE = { providerCode: 'MTN_MOMO_CM', direction: 'PAY_IN' as const, feePercentage: 1.25, feeFixed: 0, updatedAt: EXAMPLE_TIME };
const AUDIT = {
  id: 5,
  actorId: EXAMPLE_IDS.merchant,
  actorRole: 'MERCHANT',
  action: 'FUND_COLLECTION_CREATED',
  targetType: 'FUND_COLLECTION',
  targetId: EXAMPLE_IDS.collection,
  clientIp: '203.0.113.7',
  requestId: '72ce107b-2171-44b5-b986-42bd6ca8e0ec',
  before: null,
  after: { slug: 'cotisation-6eac9b55', title: 'Cotisation de novembre', applicationId: EXAMPLE_IDS.application },
  createdAt: EXAMPLE_TIME,
};

/** Largest fixed fee or amount accepted in a setting (base units): far below 2^53. */
const MONEY_MAX = 1_000_000_000_000;
/** A fee percentage 0–100 in whole basis points (at most two decimals: 1.25 % = 125 bp). */
const feePercentage = z
  .number()
  .min(0)
  .max(100)
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9, fr('doit avoir au plus deux décimales (points de base entiers)'));
const providerType = z.enum(['MOBILE_MONEY', 'BANK_TRANSFER', 'CARD', 'CRYPTO', 'WALLET']);
const providerRequest = z.object({
  code: z.string().regex(/^[A-Z][A-Z0-9_]{1,40}_[A-Z]{2}$/, fr('doit être un code en majuscules : opérateur puis pays ISO 3166 (ex. MTN_MOMO_CM)')),
  name: requiredText(255),
  type: providerType.default('MOBILE_MONEY'),
  country: z.string().regex(/^[A-Z]{2}$/, fr('doit être un code pays ISO 3166 alpha-2 (ex. CM)')),
  currency: currencySchema,
  feePercentage: feePercentage.default(0).describe('Frais des paiements (pay-in), en %'),
  feeFixed: z.number().int().min(0).default(0).describe('Partie fixe des frais des paiements, unités de base'),
  payOutFeePercentage: feePercentage.optional().describe('Frais des virements (pay-out), en % ; 0 par défaut'),
  payOutFeeFixed: z.number().int().min(0).max(MONEY_MAX).optional().describe('Partie fixe des frais des virements, unités de base'),
  settlementDelaySeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional()
    .describe("Délai avant qu'un paiement encaissé devienne disponible (0 : immédiat)"),
  minAmount: z.number().int().min(1),
  maxAmount: z.number().int().min(1),
  active: z.boolean().default(true),
  operator: z.string().regex(/^[A-Z][A-Z0-9_]{1,40}$/).optional(),
  pendingTimeoutSeconds: z.number().int().min(30).max(7 * 86_400).optional(),
});
const providerData = z.object({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  operator: z.string(),
  type: z.string(),
  country: z.string(),
  currency: z.string(),
  feePercentage: z.number(),
  feeFixed: z.number(),
  payOutFeePercentage: z.number(),
  payOutFeeFixed: z.number(),
  settlementDelaySeconds: z.number(),
  minAmount: z.number(),
  maxAmount: z.number(),
  pendingTimeoutSeconds: z.number(),
  active: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
const auditData = z.object({
  id: z.number(),
  actorId: z.string().nullable(),
  actorRole: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  clientIp: z.string().nullable(),
  requestId: z.string().nullable().describe('X-Request-Id de la requête'),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
});
const overviewData = z.object({
  merchant: profileData,
  applicationCount: z.number(),
  transactionCount: z.number(),
  transactionsByStatus: z.record(z.string(), z.object({ count: z.number(), volume: z.number() })),
});

function profileOut(view: ReturnType<typeof profileView>) {
  return { ...view, createdAt: ts(view.createdAt), updatedAt: ts(view.updatedAt) };
}
function providerOut<T extends { createdAt: Date; updatedAt: Date }>(p: T) {
  return { ...p, createdAt: ts(p.createdAt), updatedAt: ts(p.updatedAt) };
}

/** Registers /api/v1/admin/*. */
export async function dashboardAdminRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const now = () => services.clock.now();
  const tags = ['Administration'];

  r.get(
    '/api/v1/admin/merchants',
    {
      schema: {
        tags,
        operationId: 'adminListMerchants', summary: 'Lister les marchands (page)',
        security,
        querystring: pageQuery.extend({
          status: z.enum(ACCOUNT_STATUSES).optional(),
          search: z.string().trim().min(1).max(100).optional().describe("Partie de l'e-mail ou du nom, sans casse"),
        }),
        response: { 200: success(pageOf(profileData), 'Une page de marchands', { message: 'Marchands récupérés.', data: examplePage(EXAMPLE_PROFILE) }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER') },
      },
      onRequest: staffRead,
    },
    async (request) => {
      const { page, size, status, search } = request.query;
      const { rows, total } = await pageAccounts(services.db, ['MERCHANT'], status, page, size, search);
      return ok(toPage(rows.map(profileOut), total, page, size), 'Marchands récupérés.', now());
    },
  );

  r.get(
    '/api/v1/admin/merchants/:id',
    { schema: { tags, operationId: 'adminGetMerchant', summary: 'Lire un marchand', security, params: idParams, response: { 200: success(profileData, 'Le marchand', { message: 'Marchand récupéré.', data: EXAMPLE_PROFILE }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') } }, onRequest: staffRead },
    async (request) => ok(profileOut(profileView(await accountWithRole(services.db, request.params.id, ['MERCHANT']))), 'Marchand récupéré.', now()),
  );

  r.get(
    '/api/v1/admin/merchants/:id/overview',
    {
      schema: { tags, operationId: 'adminGetMerchantOverview', summary: "Vue d'ensemble d'un marchand", security, params: idParams, response: { 200: success(overviewData, 'Le marchand, ses applications et ses transactions par statut', { message: "Vue d'ensemble récupérée.", data: { merchant: EXAMPLE_PROFILE, applicationCount: 1, transactionCount: 12, transactionsByStatus: { SUCCESS: { count: 9, volume: 45000 }, FAILED: { count: 3, volume: 15000 } } } }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') } },
      onRequest: staffRead,
    },
    async (request) => {
      const o = await merchantOverview(services.db, request.params.id);
      return ok({ ...o, merchant: profileOut(o.merchant) }, "Vue d'ensemble récupérée.", now());
    },
  );

  r.patch(
    '/api/v1/admin/merchants/:id/status',
    {
      schema: {
        tags,
        operationId: 'adminSetMerchantStatus', summary: "Changer le statut d'un marchand (ferme ses sessions sauf ACTIVE)",
        security,
        params: idParams,
        body: z.object({ status: z.enum(ACCOUNT_STATUSES) }).meta({ examples: [{ status: 'SUSPENDED' }] }),
        response: { 200: success(profileData, 'Le marchand, avec son nouveau statut', { message: 'Statut du marchand mis à jour.', data: { ...EXAMPLE_PROFILE, status: 'SUSPENDED' as const } }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const target = await accountWithRole(services.db, request.params.id, ['MERCHANT']);
      const after = await setAccountStatus(request.services, auditActor(request), target, request.body.status);
      return ok(profileOut(profileView(after)), 'Statut du marchand mis à jour.', now());
    },
  );

  r.patch(
    '/api/v1/admin/merchants/:id/kyc',
    {
      schema: {
        tags,
        operationId: 'adminSetMerchantKyc', summary: "Changer le niveau KYC d'un marchand",
        security,
        params: idParams,
        body: z.object({ kycLevel: z.enum(KYC_LEVELS) }).meta({ examples: [{ kycLevel: 'BASIC' }] }),
        response: { 200: success(profileData, 'Le marchand, avec son nouveau niveau KYC', { message: 'Niveau KYC mis à jour.', data: { ...EXAMPLE_PROFILE, kycLevel: 'BASIC' } }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const target = await accountWithRole(services.db, request.params.id, ['MERCHANT']);
      const after = await setKycLevel(request.services, auditActor(request), target, request.body.kycLevel);
      return ok(profileOut(profileView(after)), 'Niveau KYC mis à jour.', now());
    },
  );

  r.get(
    '/api/v1/admin/staff',
    {
      schema: { tags, operationId: 'adminListStaff', summary: 'Lister le personnel (page)', security, querystring: pageQuery, response: { 200: success(pageOf(profileData), 'Une page du personnel', { message: 'Personnel récupéré.', data: examplePage(STAFF) }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER') } },
      onRequest: adminOnly,
    },
    async (request) => {
      const { page, size } = request.query;
      const { rows, total } = await pageAccounts(services.db, ['ADMIN', 'SUPPORT'], undefined, page, size);
      return ok(toPage(rows.map(profileOut), total, page, size), 'Personnel récupéré.', now());
    },
  );

  r.post(
    '/api/v1/admin/staff',
    {
      schema: {
        tags,
        operationId: 'adminCreateStaff', summary: 'Créer un compte ADMIN ou SUPPORT',
        security,
        body: z.object({
          fullName: requiredText(255),
          email: z.string().trim().max(255).email(),
          password: z.string().min(12).max(128),
          role: z.enum(['ADMIN', 'SUPPORT']),
          phone: z.string().max(30).nullish().transform((v) => v ?? undefined),
        }).meta({ examples: [{ fullName: 'Paul Essomba', email: 'paul@kolo.example.cm', password: 'Mot-de-passe-support-42', role: 'SUPPORT' }] }),
        response: { 201: success(profileData, 'Le compte créé', { message: 'Compte du personnel créé.', data: STAFF }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'EMAIL_ALREADY_EXISTS') },
      },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      const row = await createStaff(request.services, auditActor(request), request.body);
      return reply.code(201).send(ok(profileOut(profileView(row)), 'Compte du personnel créé.', now()));
    },
  );

  r.patch(
    '/api/v1/admin/staff/:id/status',
    {
      schema: {
        tags,
        operationId: 'adminSetStaffStatus', summary: "Suspendre ou réactiver un membre du personnel",
        security,
        params: idParams,
        body: z.object({ status: z.enum(['ACTIVE', 'SUSPENDED']) }).meta({ examples: [{ status: 'SUSPENDED' }] }),
        response: { 200: success(profileData, 'Le compte, avec son nouveau statut', { message: 'Statut mis à jour.', data: { ...STAFF, status: 'SUSPENDED' } }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const target = await accountWithRole(services.db, request.params.id, ['ADMIN', 'SUPPORT']);
      const after = await setAccountStatus(request.services, auditActor(request), target, request.body.status);
      return ok(profileOut(profileView(after)), 'Statut mis à jour.', now());
    },
  );

  r.delete(
    '/api/v1/admin/staff/:id',
    {
      schema: { tags, operationId: 'adminDeleteStaff', summary: 'Supprimer un membre du personnel (204)', security, params: idParams, response: { 204: noContent, ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') } },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      const target = await accountWithRole(services.db, request.params.id, ['ADMIN', 'SUPPORT']);
      // Soft delete: the audit log keeps pointing at a real account.
      await setAccountStatus(request.services, auditActor(request), target, 'DELETED');
      return reply.code(204).send(undefined);
    },
  );

  const feeOverrideData = z.object({
    providerCode: z.string(),
    direction: z.enum(['PAY_IN', 'PAY_OUT']),
    feePercentage: z.number(),
    feeFixed: z.number(),
    updatedAt: z.string(),
  });
  const feeOverrideOut = (o: FeeOverrideView) => ({ ...o, updatedAt: ts(o.updatedAt) });

  r.get(
    '/api/v1/admin/merchants/:id/fees',
    {
      schema: { tags, operationId: 'adminListMerchantFees', summary: "Frais propres d'un marchand", security, params: idParams, response: { 200: success(z.array(feeOverrideData), 'Les frais propres du marchand', { message: 'Frais récupérés.', data: [FEE] }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND') } },
      onRequest: staffRead,
    },
    async (request) => {
      const merchant = await accountWithRole(services.db, request.params.id, ['MERCHANT']);
      return ok((await listFeeOverrides(services.db, merchant.id)).map(feeOverrideOut), 'Frais récupérés.', now());
    },
  );

  r.put(
    '/api/v1/admin/merchants/:id/fees',
    {
      schema: {
        tags,
        operationId: 'adminPutMerchantFees', summary: "Fixer les frais propres d'un marchand sur un moyen de paiement et un sens",
        security,
        params: idParams,
        body: z.object({
          providerCode: requiredText(64),
          direction: z.enum(['PAY_IN', 'PAY_OUT']),
          feePercentage,
          feeFixed: z.number().int().min(0).max(MONEY_MAX),
        }).meta({ examples: [{ providerCode: 'MTN_MOMO_CM', direction: 'PAY_IN', feePercentage: 1.25, feeFixed: 0 }] }),
        response: { 200: success(feeOverrideData, 'Les frais enregistrés', { message: 'Frais enregistrés.', data: FEE }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND', 'PROVIDER_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const merchant = await accountWithRole(services.db, request.params.id, ['MERCHANT']);
      return ok(feeOverrideOut(await setFeeOverride(request.services, auditActor(request), merchant.id, request.body)), 'Frais enregistrés.', now());
    },
  );

  r.delete(
    '/api/v1/admin/merchants/:id/fees/:providerCode/:direction',
    {
      schema: {
        tags,
        operationId: 'adminDeleteMerchantFee', summary: "Supprimer des frais propres (les frais du moyen de paiement s'appliquent)",
        security,
        params: z.object({ id: uuidParam, providerCode: z.string().max(64), direction: z.enum(['PAY_IN', 'PAY_OUT']) }),
        response: { 204: noContent, ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'USER_NOT_FOUND', 'RESOURCE_NOT_FOUND') },
      },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      const merchant = await accountWithRole(services.db, request.params.id, ['MERCHANT']);
      await deleteFeeOverride(request.services, auditActor(request), merchant.id, request.params.providerCode, request.params.direction);
      return reply.code(204).send(undefined);
    },
  );

  r.get(
    '/api/v1/admin/providers',
    { schema: { tags, operationId: 'adminListProviders', summary: 'Lister les moyens de paiement', security, response: { 200: success(z.array(providerData), 'Les moyens de paiement', { message: 'Moyens de paiement récupérés.', data: [PROVIDER] }), ...errorResponses(...STAFF_ERRORS) } }, onRequest: staffRead },
    async () => ok((await listProviders(services.db)).map(providerOut), 'Moyens de paiement récupérés.', now()),
  );

  r.post(
    '/api/v1/admin/providers',
    {
      schema: { tags, operationId: 'adminCreateProvider', summary: 'Créer un moyen de paiement', security, body: providerRequest.meta({ examples: [{ code: 'AIRTEL_MONEY_CM', name: 'Airtel Money Cameroun', operator: 'AIRTEL_MONEY', type: 'MOBILE_MONEY', country: 'CM', currency: 'XAF', feePercentage: 1.5, feeFixed: 0, minAmount: 100, maxAmount: 1000000 }] }), response: { 201: success(providerData, 'Le moyen de paiement créé', { message: 'Moyen de paiement créé.', data: PROVIDER }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'PROVIDER_ALREADY_EXISTS') } },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      const created = await createProvider(request.services, auditActor(request), request.body);
      return reply.code(201).send(ok(providerOut(created), 'Moyen de paiement créé.', now()));
    },
  );

  r.put(
    '/api/v1/admin/providers/:id',
    {
      schema: {
        tags,
        operationId: 'adminUpdateProvider', summary: 'Modifier un moyen de paiement (limites, frais, état)',
        security,
        params: idParams,
        body: providerRequest.partial({ code: true }).meta({
          examples: [{ name: 'MTN Mobile Money Cameroun', country: 'CM', currency: 'XAF', feePercentage: 1.25, minAmount: 100, maxAmount: 2000000 }],
        }),
        response: { 200: success(providerData, 'Le moyen de paiement modifié', { message: 'Moyen de paiement mis à jour.', data: PROVIDER }), ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'PROVIDER_NOT_FOUND', 'PROVIDER_ALREADY_EXISTS') },
      },
      onRequest: adminOnly,
    },
    async (request) => ok(providerOut(await updateProvider(request.services, auditActor(request), request.params.id, request.body)), 'Moyen de paiement mis à jour.', now()),
  );

  r.patch(
    '/api/v1/admin/providers/:id/toggle',
    {
      schema: { tags, operationId: 'adminToggleProvider', summary: 'Activer ou désactiver un moyen de paiement', security, params: idParams, response: { 200: success(providerData, 'Le moyen de paiement, activé ou désactivé', { message: 'Moyen de paiement mis à jour.', data: { ...PROVIDER, active: false } }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'PROVIDER_NOT_FOUND') } },
      onRequest: adminOnly,
    },
    async (request) => ok(providerOut(await toggleProvider(request.services, auditActor(request), request.params.id)), 'Moyen de paiement mis à jour.', now()),
  );

  r.get(
    '/api/v1/admin/audit-log',
    {
      schema: {
        tags,
        operationId: 'adminListAuditLog', summary: "Journal d'audit (page, du plus récent au plus ancien)",
        security,
        querystring: pageQuery,
        response: { 200: success(pageOf(auditData), "Une page du journal d'audit", { message: "Journal d'audit récupéré.", data: examplePage(AUDIT) }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER') },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const { page, size } = request.query;
      const { rows, total } = await listAudit(services.db, page, size);
      const content = rows.map((row) => ({
        ...row,
        before: row.before as Record<string, unknown> | null,
        after: row.after as Record<string, unknown> | null,
        createdAt: ts(row.createdAt),
      }));
      return ok(toPage(content, total, page, size), "Journal d'audit récupéré.", now());
    },
  );
}
