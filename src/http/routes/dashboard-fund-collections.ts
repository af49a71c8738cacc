/**
 * Dashboard fund collection routes: create in an application, list (a bare array, as SharePay's
 * dashboard reads it), read, update, close, reopen, delete. Thin adapters over
 * `collections/fund-collections.ts`, which holds the rules. A MERCHANT reaches its own collections
 * only (another merchant's id answers 404 COLLECTION_NOT_FOUND, like an unknown one); SUPPORT reads
 * and gets 403 ACCESS_DENIED on writes; ADMIN reads and writes all.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  closeFundCollection,
  collectionView,
  createFundCollection,
  deleteFundCollection,
  findFundCollection,
  listFundCollections,
  reopenFundCollection,
  updateFundCollection,
  type CollectionViewer,
  type FundCollectionView,
} from '../../collections/index.ts';
import { ApiError } from '../../domain/errors.ts';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import type { Services } from '../../services.ts';
import { changedFields, recordAudit } from '../../dashboard/audit.ts';
import { auditActor, dashboardAuthHook, findAccessibleApplication, requireAccount } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { EXAMPLE_COLLECTION } from '../schemas/examples.ts';
import { uuidParam } from '../schemas/common.ts';
import { idParams, ts } from '../schemas/dashboard.ts';
import {
  collectionData,
  collectionList,
  collectionListQuery,
  createCollectionRequest,
  reopenCollectionRequest,
  updateCollectionRequest,
} from '../schemas/fund-collections.ts';
import { bearerSecurity } from './dashboard-auth.ts';

/** Codes of a route on one collection: its id, and whether this account may see or change it. */
const COLLECTION_ERRORS = ['INVALID_PARAMETER', ...BEARER_ERRORS, 'COLLECTION_NOT_FOUND', 'ACCESS_DENIED'] as const;
/** Fields a PATCH may change (what the audit log compares). */
const EDITABLE_FIELDS = ['title', 'description', 'coverImageUrl', 'isAmountFixed', 'amount', 'expiresAt', 'collectCustomerInfo', 'thankYouMessage'] as const;

function out(view: FundCollectionView) {
  return { ...view, expiresAt: ts(view.expiresAt), createdAt: ts(view.createdAt), updatedAt: ts(view.updatedAt) };
}

/** Registers /api/v1/merchants/…/fund-collections…. */
export async function dashboardFundCollectionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Dashboard : collectes'];
  const security = bearerSecurity;
  const now = () => services.clock.now();
  const viewerOf = (request: FastifyRequest): CollectionViewer => {
    const account = requireAccount(request);
    return { accountId: account.accountId, role: account.role };
  };
  /** The collection for a write: SUPPORT is refused before the lookup, so it learns nothing. */
  const forWrite = (request: FastifyRequest, id: string) => {
    const viewer = viewerOf(request);
    if (viewer.role === 'SUPPORT') throw new ApiError('ACCESS_DENIED');
    return findFundCollection(services.db, viewer, id, { write: true });
  };
  /** One audit log entry per change, with the fields that changed. */
  const audit = (request: FastifyRequest, action: string, id: string, before: object | null, after: object | null) =>
    recordAudit(request.services, auditActor(request), {
      action,
      targetType: 'FUND_COLLECTION',
      targetId: id,
      ...(before && after ? changedFields(before as Record<string, unknown>, after as Record<string, unknown>) : { before: before as Record<string, unknown> | null, after: after as Record<string, unknown> | null }),
    });

  r.post(
    '/api/v1/merchants/apps/:applicationId/fund-collections',
    {
      schema: {
        tags,
        operationId: 'createFundCollection', summary: 'Créer une collecte',
        description: 'Une page publique `/collect/{slug}` où chacun paie, montant fixe ou libre. Codes : APP_NOT_FOUND, CURRENCY_MISMATCH, AMOUNT_REQUIRED_FOR_FIXED.',
        security,
        params: z.object({ applicationId: uuidParam }),
        body: createCollectionRequest,
        response: { 201: success(collectionData, 'La collecte créée, avec son adresse publique', { message: 'Collecte créée.', data: EXAMPLE_COLLECTION }), ...errorResponses(...BODY_ERRORS, 'INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'APP_NOT_FOUND', 'CURRENCY_MISMATCH', 'AMOUNT_REQUIRED_FOR_FIXED') },
      },
    },
    async (request, reply) => {
      const application = await findAccessibleApplication(request.services, requireAccount(request), request.params.applicationId, { write: true });
      // The application's merchant's default: staff (ADMIN) create in a merchant's application.
      const environment = await dashboardEnvironment(services.db, application.merchantId, request.body.environment);
      const created = await createFundCollection(request.services, application, { ...request.body, environment });
      await audit(request, 'FUND_COLLECTION_CREATED', created.id, null, { title: created.title, slug: created.slug, applicationId: created.applicationId });
      return reply.code(201).send(ok(out(created), 'Collecte créée.', now()));
    },
  );

  r.get(
    '/api/v1/merchants/fund-collections',
    {
      schema: {
        tags,
        operationId: 'listFundCollections', summary: 'Mes collectes',
        description:
          'Un tableau (sans objet de page), les plus récentes d’abord : `size` collectes (100 par défaut et au plus) de la page `page` (0 par défaut). ' +
          'Filtres : applicationId (404 APP_NOT_FOUND si elle n’est pas à vous), status, environment.',
        security,
        querystring: collectionListQuery,
        response: { 200: success(collectionList, 'Les collectes de la page', { message: 'Collectes récupérées.', data: [EXAMPLE_COLLECTION] }), ...errorResponses('INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND') },
      },
    },
    async (request) => {
      const viewer = viewerOf(request);
      const { applicationId, status, environment, page, size } = request.query;
      if (applicationId) await findAccessibleApplication(request.services, requireAccount(request), applicationId, { write: false });
      const collections = await listFundCollections(request.services, viewer, { applicationId, status, environment, page, size });
      return ok(collections.map(out), 'Collectes récupérées.', now());
    },
  );

  r.get(
    '/api/v1/merchants/fund-collections/:id',
    { schema: { tags, operationId: 'getFundCollection', summary: 'Une collecte', security, params: idParams, response: { 200: success(collectionData, 'La collecte', { message: 'Collecte récupérée.', data: EXAMPLE_COLLECTION }), ...errorResponses(...COLLECTION_ERRORS) } } },
    async (request) => {
      const found = await findFundCollection(services.db, viewerOf(request), request.params.id, { write: false });
      const view = collectionView(found.row, found.applicationName, services.config.publicBaseUrl, now());
      return ok(out(view), 'Collecte récupérée.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/fund-collections/:id',
    {
      schema: {
        tags,
        operationId: 'updateFundCollection', summary: 'Modifier une collecte',
        description: 'Collecte ACTIVE seulement (409 COLLECTION_NOT_EDITABLE sinon). `removeExpiresAt: true` retire la date de fin.',
        security,
        params: idParams,
        body: updateCollectionRequest,
        response: { 200: success(collectionData, 'La collecte modifiée', { message: 'Collecte mise à jour.', data: EXAMPLE_COLLECTION }), ...errorResponses(...BODY_ERRORS, ...COLLECTION_ERRORS, 'COLLECTION_NOT_EDITABLE', 'AMOUNT_REQUIRED_FOR_FIXED') },
      },
    },
    async (request) => {
      const found = await forWrite(request, request.params.id);
      const updated = await updateFundCollection(request.services, found, request.body);
      const editable = { ...updated, isAmountFixed: updated.amountFixed };
      const after = Object.fromEntries(EDITABLE_FIELDS.map((key) => [key, editable[key]]));
      await audit(request, 'FUND_COLLECTION_UPDATED', updated.id, found.row, after);
      return ok(out(updated), 'Collecte mise à jour.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/fund-collections/:id/close',
    {
      schema: {
        tags,
        operationId: 'closeFundCollection', summary: 'Fermer une collecte',
        description: 'ACTIVE → CLOSED ; 409 COLLECTION_ALREADY_CLOSED si elle est déjà fermée ou expirée.',
        security,
        params: idParams,
        response: { 200: success(collectionData, "La collecte fermée : elle n'accepte plus de paiements", { message: 'Collecte fermée.', data: { ...EXAMPLE_COLLECTION, status: 'CLOSED' as const } }), ...errorResponses(...COLLECTION_ERRORS, 'COLLECTION_ALREADY_CLOSED') },
      },
    },
    async (request) => {
      const found = await forWrite(request, request.params.id);
      const closed = await closeFundCollection(request.services, found);
      await audit(request, 'FUND_COLLECTION_CLOSED', closed.id, { status: found.row.status }, { status: closed.status });
      return ok(out(closed), 'Collecte fermée.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/fund-collections/:id/reopen',
    {
      schema: {
        tags,
        operationId: 'reopenFundCollection', summary: 'Rouvrir une collecte',
        description: 'CLOSED ou EXPIRED → ACTIVE ; 409 COLLECTION_NOT_CLOSED si elle est ouverte. Une collecte expirée demande une nouvelle date `expiresAt` future (ou `removeExpiresAt`).',
        security,
        params: idParams,
        body: reopenCollectionRequest,
        response: { 200: success(collectionData, 'La collecte rouverte', { message: 'Collecte rouverte.', data: EXAMPLE_COLLECTION }), ...errorResponses(...BODY_ERRORS, ...COLLECTION_ERRORS, 'COLLECTION_NOT_CLOSED') },
      },
    },
    async (request) => {
      const found = await forWrite(request, request.params.id);
      const reopened = await reopenFundCollection(request.services, found, request.body ?? {});
      await audit(request, 'FUND_COLLECTION_REOPENED', reopened.id, { status: found.row.status, expiresAt: found.row.expiresAt }, { status: reopened.status, expiresAt: reopened.expiresAt });
      return ok(out(reopened), 'Collecte rouverte.', now());
    },
  );

  r.delete(
    '/api/v1/merchants/fund-collections/:id',
    {
      schema: {
        tags,
        operationId: 'deleteFundCollection', summary: 'Supprimer une collecte',
        description: 'Définitif : la page refuse les paiements, la collecte répond 404 ensuite. Ses paiements restent dans les transactions.',
        security,
        params: idParams,
        response: { 204: noContent, ...errorResponses(...COLLECTION_ERRORS, 'COLLECTION_NOT_EDITABLE') },
      },
    },
    async (request, reply) => {
      const found = await forWrite(request, request.params.id);
      await deleteFundCollection(request.services, found);
      await audit(request, 'FUND_COLLECTION_DELETED', found.row.id, { status: found.row.status }, { status: 'DELETED' });
      return reply.code(204).send();
    },
  );
}
