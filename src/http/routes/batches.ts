/**
 * Batch pay-outs over HTTP (src/batches): the merchant API (`X-API-KEY` with the PAYOUT scope)
 * creates and reads batches; the dashboard creates them (finance), lists and reads them (each
 * with what the signed-in person may do to it), and approves or rejects (approvers, with a fresh
 * second factor: the dashboard guard) or cancels them (finance). Thin adapters: parse, call one
 * use case, wrap in the envelope.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { and, eq, isNull } from 'drizzle-orm';
import {
  approveBatch,
  batchItemViews,
  batchView,
  closeBatch,
  createBatch,
  findBatch,
  listBatches,
  parseBatchCsv,
  retryFailedItems,
  batchResultsCsv,
  type BatchCreator,
  type CreateBatchResult,
} from '../../batches/index.ts';
import { batches } from '../../db/schema-batches.ts';
import { applications } from '../../db/schema.ts';
import { recordAudit } from '../../dashboard/audit.ts';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import { ApiError, validationError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { requireApiKey, requireApiKeys } from '../api-key-auth.ts';
import { auditActor, dashboardAuthHook, findAccessibleApplication, requireAccount, requireRole, type DashboardAccount } from '../dashboard-auth.ts';
import { memberMay } from '../../dashboard/team-roles.ts';
import { ok } from '../envelope.ts';
import { BATCH_BODY_EXAMPLE, batchCreateData, batchCreateRequest, batchData, batchDetailData, batchIdParams, batchListItemData, batchListQuery, dashboardBatchDetailData, type BATCH_ACTIONS } from '../schemas/batches.ts';
import { appIdKeyParams, dashboardEnvironmentQuery, pageOf, toPage } from '../schemas/dashboard.ts';
import { API_KEY_ERRORS, BEARER_ERRORS, BODY_ERRORS, apiKeySecurity, bearerSecurity, errorResponses, success } from '../schemas/openapi.ts';
import { idempotencyHeader } from './payments.ts';

const CREATE_ERRORS = ['IDEMPOTENCY_KEY_REUSED'] as const;
const EXAMPLE_BATCH = {
  id: '7b0e5a62-1c2d-4c8e-9a51-2f3e4d5c6b7a',
  status: 'AWAITING_APPROVAL',
  environment: 'TEST',
  currency: 'XAF',
  itemCount: 2,
  totalAmount: 95000,
  feeAmount: 0,
  reservedAmount: 95000,
  progress: { waiting: 2, pending: 0, succeeded: 0, failed: 0 },
  createdBy: null,
  approvedBy: null,
  createdAt: '2026-11-20T10:00:00.000Z',
  expiresAt: '2026-11-23T10:00:00.000Z',
  approvedAt: null,
  closedAt: null,
};
const EXAMPLE_TOTALS = { itemCount: 2, totalAmount: 95000, feeAmount: 0, reservedAmount: 95000, currency: 'XAF' };

/** The items of a creation body (JSON or CSV) and the row each is reported under. */
function itemsOf(body: { items?: Record<string, unknown>[] | undefined; csv?: string | undefined }) {
  if ((body.items === undefined) === (body.csv === undefined)) throw validationError({ items: 'envoyez soit items, soit csv' });
  if (body.csv !== undefined) return parseBatchCsv(body.csv);
  return { items: body.items!, rowOf: (index: number) => index + 1 };
}

async function create(services: Services, creator: BatchCreator, request: FastifyRequest, body: { items?: Record<string, unknown>[] | undefined; csv?: string | undefined; dryRun?: boolean | undefined }) {
  const { items, rowOf } = itemsOf(body);
  const result: CreateBatchResult = await createBatch(services, creator, { items, dryRun: body.dryRun === true }, rowOf, idempotencyHeader(request));
  if (result.dryRun) return { status: 200 as const, data: { dryRun: true, totals: result.totals, batch: null }, message: 'Lot vérifié : rien n’a été enregistré.' };
  const b = result.batch;
  const totals = { itemCount: b.itemCount, totalAmount: b.totalAmount, feeAmount: b.feeAmount, reservedAmount: b.reservedAmount, currency: b.currency };
  return { status: 201 as const, data: { dryRun: false, totals, batch: b }, message: 'Lot de virements créé.' };
}

const RESULTS_EXAMPLE =
  'rowNumber,merchantReference,beneficiaryAccount,beneficiaryName,paymentMethod,amount,feeAmount,currency,status,reference,failureReason\r\n' +
  '1,SAL-1,237677000001,Awa Ngono,MTN_MOMO_CM,50000,0,XAF,SUCCESS,PO-80E71EA01178,\r\n';
const RESULTS_DESCRIPTION =
  'text/csv; charset=utf-8, UTF-8 avec BOM, séparateur virgule, fins de ligne CRLF, une ligne d’en-tête : rowNumber, merchantReference, ' +
  'beneficiaryAccount, beneficiaryName, paymentMethod, amount, feeAmount (unités de base), currency, status (WAITING, PENDING, SUCCESS, FAILED), reference, failureReason.';

/** Sends the results file of `batch`. */
async function sendResults(services: Services, reply: FastifyReply, batch: { id: string; currency: string }) {
  const file = await batchResultsCsv(services.db, batch.id, batch.currency);
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="lot-${batch.id}.csv"`)
    .header('cache-control', 'no-store')
    .send(file);
}

/**
 * What `account` may do to `batch` now: approve (the APPROVE permission, not its creator) or
 * reject while it awaits approval, cancel it then (FINANCE), retry its failed items once it is
 * PARTLY_FAILED (FINANCE). The same rules the routes enforce, so the screen offers no button the
 * API would refuse for the role or the status.
 */
function allowedActions(account: DashboardAccount, batch: { status: string; createdBy: string | null }): (typeof BATCH_ACTIONS)[number][] {
  const role = account.memberRole ?? 'VIEWER';
  const actions: (typeof BATCH_ACTIONS)[number][] = [];
  if (batch.status === 'AWAITING_APPROVAL') {
    if (memberMay(role, 'APPROVE') && batch.createdBy !== account.personId) actions.push('APPROVE');
    if (memberMay(role, 'APPROVE')) actions.push('REJECT');
    if (memberMay(role, 'FINANCE')) actions.push('CANCEL');
  }
  if (batch.status === 'PARTLY_FAILED' && memberMay(role, 'FINANCE')) actions.push('RETRY');
  return actions;
}

/** Registers the merchant API's batch routes. */
export async function merchantBatchRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  requireApiKeys(app, services);

  r.post(
    '/api/v1/pay-out/batches',
    {
      schema: {
        tags: ['Pay-out'],
        summary: 'Créer un lot de virements',
        description:
          "Jusqu'à 1 000 virements (items) ou un fichier CSV (csv), vérifiés et chiffrés comme des virements : chaque erreur nomme sa ligne. " +
          "dryRun: true vérifie sans rien écrire (200). Sinon le lot attend l'approbation d'une personne autre que son créateur (201) ; " +
          "rien n'est réservé ni envoyé avant. En-tête facultatif Idempotency-Key : la même requête rend le même lot.",
        operationId: 'createPayOutBatch',
        security: apiKeySecurity,
        body: batchCreateRequest,
        response: {
          200: success(batchCreateData, 'Lot vérifié (dryRun), rien écrit', { message: 'Lot vérifié : rien n’a été enregistré.', data: { dryRun: true, totals: EXAMPLE_TOTALS, batch: null } }),
          201: success(batchCreateData, 'Lot créé', { message: 'Lot de virements créé.', data: { dryRun: false, totals: EXAMPLE_TOTALS, batch: EXAMPLE_BATCH } }),
          ...errorResponses(...BODY_ERRORS, ...API_KEY_ERRORS, ...CREATE_ERRORS, 'INSUFFICIENT_BALANCE'),
        },
      },
    },
    async (request, reply) => {
      const auth = requireApiKey(request, ['PAYOUT']);
      const out = await create(request.services, { applicationId: auth.applicationId, currency: auth.currency, environment: auth.environment, personId: null }, request, request.body);
      return reply.code(out.status).send(ok(out.data, out.message, services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-out/batches/:id',
    {
      schema: {
        tags: ['Pay-out'],
        summary: "Un lot de virements, sa progression et ses éléments",
        operationId: 'getPayOutBatch',
        security: apiKeySecurity,
        params: batchIdParams,
        response: {
          200: success(batchDetailData, 'Le lot', { message: 'Lot récupéré.', data: { ...EXAMPLE_BATCH, items: [] } }),
          ...errorResponses('INVALID_PARAMETER', ...API_KEY_ERRORS, 'BATCH_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const auth = requireApiKey(request, ['PAYOUT', 'READ']);
      const batch = await findBatch(services.db, auth.applicationId, request.params.id);
      if (batch.environment !== auth.environment) throw new ApiError('BATCH_NOT_FOUND');
      const data = { ...(await batchView(services.db, batch)), items: await batchItemViews(services.db, batch.id) };
      return reply.send(ok(data, 'Lot récupéré.', services.clock.now()));
    },
  );

  r.post(
    '/api/v1/pay-out/batches/:id/retry',
    {
      schema: {
        tags: ['Pay-out'],
        summary: 'Relancer les éléments en échec d’un lot terminé',
        description:
          "Crée un NOUVEAU lot avec les seuls éléments en échec d'un lot PARTLY_FAILED (mêmes lignes), qui attend l'approbation comme tout lot. " +
          'Relancer encore le même lot rend ce nouveau lot tant qu’il n’a pas été rejeté, annulé ou n’a pas expiré.',
        operationId: 'retryPayOutBatch',
        security: apiKeySecurity,
        params: batchIdParams,
        response: {
          201: success(batchData, 'Le lot des éléments relancés', { message: 'Éléments en échec relancés dans un nouveau lot.', data: EXAMPLE_BATCH }),
          ...errorResponses('INVALID_PARAMETER', ...API_KEY_ERRORS, 'BATCH_NOT_FOUND', 'BATCH_NOT_FINISHED', 'VALIDATION_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const auth = requireApiKey(request, ['PAYOUT']);
      const batch = await findBatch(services.db, auth.applicationId, request.params.id);
      if (batch.environment !== auth.environment) throw new ApiError('BATCH_NOT_FOUND');
      const data = await retryFailedItems(request.services, { applicationId: auth.applicationId, currency: auth.currency, environment: auth.environment, personId: null }, batch.id);
      return reply.code(201).send(ok(data, 'Éléments en échec relancés dans un nouveau lot.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/pay-out/batches/:id/results.csv',
    {
      schema: {
        tags: ['Pay-out'],
        summary: 'Le fichier des résultats d’un lot (CSV)',
        description: RESULTS_DESCRIPTION,
        operationId: 'getPayOutBatchResults',
        security: apiKeySecurity,
        params: batchIdParams,
        response: {
          200: z.string().meta({ description: 'Fichier CSV (text/csv)', examples: [RESULTS_EXAMPLE] }),
          ...errorResponses('INVALID_PARAMETER', ...API_KEY_ERRORS, 'BATCH_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const auth = requireApiKey(request, ['PAYOUT', 'READ']);
      const batch = await findBatch(services.db, auth.applicationId, request.params.id);
      if (batch.environment !== auth.environment) throw new ApiError('BATCH_NOT_FOUND');
      return sendResults(services, reply, batch);
    },
  );
}

/** Registers the dashboard's batch routes. */
export async function dashboardBatchRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));

  /** The batch `id` of one of the signed-in merchant's applications (404 BATCH_NOT_FOUND otherwise). */
  const merchantBatch = async (request: FastifyRequest, id: string) => {
    const account = requireAccount(request);
    requireRole(account, 'MERCHANT');
    const [row] = await services.db.select({ applicationId: batches.applicationId }).from(batches).where(eq(batches.id, id));
    if (!row) throw new ApiError('BATCH_NOT_FOUND');
    try {
      await findAccessibleApplication(services, account, row.applicationId, { write: false });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'APP_NOT_FOUND') throw new ApiError('BATCH_NOT_FOUND');
      throw error;
    }
    return { account, applicationId: row.applicationId };
  };

  r.post(
    '/api/v1/merchants/apps/:appId/batches',
    {
      schema: {
        tags: ['Dashboard - Virements'],
        summary: "Créer un lot de virements depuis l'une de mes applications",
        description: "Comme POST /api/v1/pay-out/batches ; environment choisit l'environnement (par défaut celui du tableau de bord). Rôle finance.",
        operationId: 'dashboardCreateBatch',
        security: bearerSecurity,
        params: appIdKeyParams,
        body: batchCreateRequest.extend({ environment: dashboardEnvironmentQuery }).meta({ examples: [{ ...BATCH_BODY_EXAMPLE, environment: 'TEST' }] }),
        response: {
          200: success(batchCreateData, 'Lot vérifié (dryRun), rien écrit', { message: 'Lot vérifié : rien n’a été enregistré.', data: { dryRun: true, totals: EXAMPLE_TOTALS, batch: null } }),
          201: success(batchCreateData, 'Lot créé', { message: 'Lot de virements créé.', data: { dryRun: false, totals: EXAMPLE_TOTALS, batch: EXAMPLE_BATCH } }),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'ACCESS_DENIED', 'APP_NOT_FOUND', 'APP_ACCESS_DENIED', ...CREATE_ERRORS, 'INSUFFICIENT_BALANCE'),
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      requireRole(account, 'MERCHANT');
      const appRow = await findAccessibleApplication(services, account, request.params.appId, { write: true });
      if (appRow.status !== 'ACTIVE') throw new ApiError('APP_ACCESS_DENIED');
      const environment = await dashboardEnvironment(services.db, account.accountId, request.body.environment);
      const out = await create(request.services, { applicationId: appRow.id, currency: appRow.currency, environment, personId: account.personId }, request, request.body);
      if (out.data.batch) {
        const b = out.data.batch;
        await recordAudit(request.services, auditActor(request), { action: 'BATCH_CREATED', targetType: 'BATCH', targetId: b.id, after: { status: b.status, itemCount: b.itemCount, reservedAmount: b.reservedAmount } });
      }
      return reply.code(out.status).send(ok(out.data, out.message, services.clock.now()));
    },
  );

  r.get(
    '/api/v1/merchants/batches',
    {
      schema: {
        tags: ['Dashboard - Virements'],
        summary: 'Mes lots de virements, les plus récents d’abord, avec leur progression',
        description:
          "Une page d'objets (content, totalPages…) : les lots de mes applications (ou de l'application appId) dans l'environnement " +
          'environment (par défaut celui du tableau de bord).',
        operationId: 'dashboardListBatches',
        security: bearerSecurity,
        querystring: batchListQuery,
        response: {
          200: success(pageOf(batchListItemData), 'Les lots de la page', {
            message: 'Lots récupérés.',
            data: toPage([{ ...EXAMPLE_BATCH, applicationId: '3f0c2b1a-5d4e-4f6a-8b7c-9d0e1f2a3b4c' }], 1, 0, 20),
          }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'APP_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      requireRole(account, 'MERCHANT');
      const { appId, environment: requested, page, size } = request.query;
      const environment = await dashboardEnvironment(services.db, account.accountId, requested);
      const ids = appId
        ? [(await findAccessibleApplication(services, account, appId, { write: false })).id]
        : (await services.db.select({ id: applications.id }).from(applications).where(and(eq(applications.merchantId, account.accountId), isNull(applications.deletedAt)))).map((a) => a.id);
      const { content, total } = await listBatches(services.db, ids, environment, page, size);
      return reply.send(ok(toPage(content, total, page, size), 'Lots récupérés.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/merchants/batches/:id',
    {
      schema: {
        tags: ['Dashboard - Virements'],
        summary: 'Un lot de virements, sa progression et ses éléments',
        operationId: 'dashboardGetBatch',
        security: bearerSecurity,
        params: batchIdParams,
        response: {
          200: success(dashboardBatchDetailData, 'Le lot', { message: 'Lot récupéré.', data: { ...EXAMPLE_BATCH, items: [], allowedActions: ['REJECT', 'CANCEL'] } }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'BATCH_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const { account, applicationId } = await merchantBatch(request, request.params.id);
      const batch = await findBatch(services.db, applicationId, request.params.id);
      const data = { ...(await batchView(services.db, batch)), items: await batchItemViews(services.db, batch.id), allowedActions: allowedActions(account, batch) };
      return reply.send(ok(data, 'Lot récupéré.', services.clock.now()));
    },
  );

  r.post(
    '/api/v1/merchants/batches/:id/retry',
    {
      schema: {
        tags: ['Dashboard - Virements'],
        summary: 'Relancer les éléments en échec d’un lot terminé (rôle finance)',
        description: 'Comme POST /api/v1/pay-out/batches/{id}/retry ; le nouveau lot est créé par la personne connectée, qui ne pourra pas l’approuver.',
        operationId: 'dashboardRetryBatch',
        security: bearerSecurity,
        params: batchIdParams,
        response: {
          201: success(batchData, 'Le lot des éléments relancés', { message: 'Éléments en échec relancés dans un nouveau lot.', data: EXAMPLE_BATCH }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'SECOND_FACTOR_ENROLMENT_REQUIRED', 'BATCH_NOT_FOUND', 'BATCH_NOT_FINISHED', 'VALIDATION_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const { account, applicationId } = await merchantBatch(request, request.params.id);
      const batch = await findBatch(services.db, applicationId, request.params.id);
      const data = await retryFailedItems(
        request.services,
        { applicationId, currency: batch.currency, environment: batch.environment as BatchCreator['environment'], personId: account.personId },
        batch.id,
      );
      await recordAudit(request.services, auditActor(request), { action: 'BATCH_RETRIED', targetType: 'BATCH', targetId: batch.id, after: { retryBatchId: data.id } });
      return reply.code(201).send(ok(data, 'Éléments en échec relancés dans un nouveau lot.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/merchants/batches/:id/results.csv',
    {
      schema: {
        tags: ['Dashboard - Virements'],
        summary: 'Le fichier des résultats d’un lot (CSV)',
        description: RESULTS_DESCRIPTION,
        operationId: 'dashboardGetBatchResults',
        security: bearerSecurity,
        params: batchIdParams,
        response: {
          200: z.string().meta({ description: 'Fichier CSV (text/csv)', examples: [RESULTS_EXAMPLE] }),
          ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'BATCH_NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const { applicationId } = await merchantBatch(request, request.params.id);
      return sendResults(services, reply, await findBatch(services.db, applicationId, request.params.id));
    },
  );

  const decisions = [
    ['approve', 'Approuver un lot : réserve montants et frais en une écriture, puis les virements partent un à un. Une autre personne que son créateur, rôle approbateur, second facteur récent.', 'Lot approuvé.'],
    ['reject', "Rejeter un lot qui attend l'approbation (rôle approbateur) : rien n'est réservé ni envoyé.", 'Lot rejeté.'],
    ['cancel', "Annuler un lot qui attend l'approbation (rôle finance) : rien n'est réservé ni envoyé.", 'Lot annulé.'],
  ] as const;
  for (const [action, description, message] of decisions) {
    r.post(
      `/api/v1/merchants/batches/:id/${action}`,
      {
        schema: {
          tags: ['Dashboard - Virements'],
          summary: description.split(' : ')[0]!,
          description,
          operationId: `dashboard${action[0]!.toUpperCase()}${action.slice(1)}Batch`,
          security: bearerSecurity,
          params: batchIdParams,
          response: {
            200: success(batchData, message, { message, data: { ...EXAMPLE_BATCH, status: action === 'approve' ? 'APPROVED' : action === 'reject' ? 'REJECTED' : 'CANCELLED' } }),
            ...errorResponses(
              'INVALID_PARAMETER',
              ...BEARER_ERRORS,
              'ACCESS_DENIED',
              'SECOND_FACTOR_ENROLMENT_REQUIRED',
              ...(action === 'approve' ? (['FRESH_SECOND_FACTOR_REQUIRED', 'BATCH_SELF_APPROVAL', 'INSUFFICIENT_BALANCE'] as const) : []),
              'BATCH_NOT_FOUND',
              'BATCH_NOT_AWAITING_APPROVAL',
            ),
          },
        },
      },
      async (request, reply) => {
        const { account, applicationId } = await merchantBatch(request, request.params.id);
        const decider = { personId: account.personId };
        const data =
          action === 'approve'
            ? await approveBatch(request.services, applicationId, request.params.id, decider)
            : await closeBatch(request.services, applicationId, request.params.id, decider, action === 'reject' ? 'REJECTED' : 'CANCELLED');
        await recordAudit(request.services, auditActor(request), {
          action: `BATCH_${data.status}`,
          targetType: 'BATCH',
          targetId: data.id,
          before: { status: 'AWAITING_APPROVAL' },
          after: { status: data.status, reservedAmount: data.reservedAmount },
        });
        return reply.send(ok(data, message, services.clock.now()));
      },
    );
  }
}
