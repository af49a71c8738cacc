/**
 * Dashboard routes for applications and their API keys (creation, rotation, revocation), at the
 * paths and in the shapes SharePay's dashboard calls. Bearer-authenticated; a MERCHANT only reaches
 * its own applications (another merchant's id is a 404 like an unknown one), SUPPORT reads all and
 * writes none (403), ADMIN reads and writes all.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createApiKey, listApiKeys, revokeActiveKey, rotateApiKey, updateActiveKeyAccess, type ApiKeyView } from '../../accounts/api-keys.ts';
import { recordAudit } from '../../dashboard/audit.ts';
import {
  applicationView,
  createDashboardApplication,
  deleteDashboardApplication,
  listApplications,
  updateDashboardApplication,
  type ApplicationView,
} from '../../dashboard/applications.ts';
import { ApiError } from '../../domain/errors.ts';
import type { Services } from '../../services.ts';
import { auditActor, dashboardAuthHook, findAccessibleApplication, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { EXAMPLE_API_KEY, EXAMPLE_API_KEY_VIEW, EXAMPLE_APPLICATION, EXAMPLE_WEBHOOK_SECRET } from '../schemas/examples.ts';
import {
  apiKeyAccessRequest,
  apiKeyData,
  apiKeyRequest,
  appCreateRequest,
  appData,
  appIdKeyParams,
  appIdParams,
  appUpdateRequest,
  ts,
} from '../schemas/dashboard.ts';
import { z } from 'zod';
import { bearerSecurity } from './dashboard-auth.ts';

/** Codes of a route on one application: its id, and whether this account may see or change it. */
const APP_ERRORS = ['INVALID_PARAMETER', ...BEARER_ERRORS, 'APP_NOT_FOUND', 'ACCESS_DENIED'] as const;
const newKey = { ...EXAMPLE_API_KEY_VIEW, plainTextKey: EXAMPLE_API_KEY, lastUsedAt: null };

function appOut(app: ApplicationView) {
  const { merchantId: _merchantId, ...rest } = app;
  return { ...rest, createdAt: ts(app.createdAt), updatedAt: ts(app.updatedAt) };
}

function keyOut(key: ApiKeyView & { plainTextKey?: string }) {
  const { applicationId: _applicationId, ...rest } = key;
  return { ...rest, lastUsedAt: ts(key.lastUsedAt), createdAt: ts(key.createdAt), updatedAt: ts(key.updatedAt) };
}

/** Registers /api/v1/merchants/apps and /api/v1/merchants/apps/{appId}/api-keys. */
export async function dashboardAppRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const now = () => services.clock.now();
  const tags = ['Dashboard : applications'];
  const keyTags = ['Dashboard : clés API'];
  const security = bearerSecurity;

  r.get(
    '/api/v1/merchants/apps',
    {
      schema: {
        tags,
        summary: 'Lister mes applications (toutes pour le personnel)',
        operationId: 'listApplications',
        security,
        response: {
          200: success(z.array(appData), 'Les applications', { message: 'Applications récupérées.', data: [EXAMPLE_APPLICATION] }),
          ...errorResponses(...BEARER_ERRORS),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      const list = await listApplications(services.db, account.role === 'MERCHANT' ? account.accountId : null);
      return ok(list.map(appOut), 'Applications récupérées.', now());
    },
  );

  r.post(
    '/api/v1/merchants/apps',
    {
      schema: {
        tags,
        summary: 'Créer une application',
        description: 'La réponse porte le secret de signature des webhooks (plainTextWebhookSecret), affiché cette seule fois.',
        operationId: 'createApplication',
        security,
        body: appCreateRequest,
        response: {
          201: success(appData, "L'application créée, avec son secret de webhook", {
            message: 'Application créée.',
            data: { ...EXAMPLE_APPLICATION, plainTextWebhookSecret: EXAMPLE_WEBHOOK_SECRET, activeKeyPrefix: null, activeKeyEnvironment: null },
          }),
          ...errorResponses(...BODY_ERRORS, ...BEARER_ERRORS, 'ACCESS_DENIED', 'APP_NAME_ALREADY_EXISTS'),
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request);
      // Applications belong to a merchant: staff accounts have none of their own.
      requireRole(account, 'MERCHANT');
      const created = await createDashboardApplication(request.services, account.accountId, request.body, auditActor(request));
      return reply.code(201).send(ok(appOut(created), 'Application créée.', now()));
    },
  );

  r.get(
    '/api/v1/merchants/apps/:id',
    {
      schema: {
        tags,
        summary: 'Lire une application',
        operationId: 'getApplication',
        security,
        params: appIdParams,
        response: { 200: success(appData, "L'application", { message: 'Application récupérée.', data: EXAMPLE_APPLICATION }), ...errorResponses(...APP_ERRORS) },
      },
    },
    async (request) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.id, { write: false });
      return ok(appOut(await applicationView(services.db, row)), 'Application récupérée.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/apps/:id',
    {
      schema: {
        tags,
        summary: 'Modifier une application (tous les champs sauf la devise)',
        security,
        operationId: 'updateApplication',
        params: appIdParams,
        body: appUpdateRequest,
        response: {
          200: success(appData, "L'application modifiée", { message: 'Application mise à jour.', data: EXAMPLE_APPLICATION }),
          ...errorResponses(...BODY_ERRORS, ...APP_ERRORS, 'APP_NAME_ALREADY_EXISTS', 'APP_ACCESS_DENIED'),
        },
      },
    },
    async (request) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.id, { write: true });
      const updated = await updateDashboardApplication(request.services, row, request.body, auditActor(request));
      return ok(appOut(updated), 'Application mise à jour.', now());
    },
  );

  r.delete(
    '/api/v1/merchants/apps/:id',
    {
      schema: {
        tags,
        summary: 'Supprimer une application (204, sans corps)',
        operationId: 'deleteApplication',
        security,
        params: appIdParams,
        response: { 204: noContent, ...errorResponses(...APP_ERRORS) },
      },
    },
    async (request, reply) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.id, { write: true });
      await deleteDashboardApplication(request.services, row, auditActor(request));
      return reply.code(204).send(undefined);
    },
  );

  r.post(
    '/api/v1/merchants/apps/:appId/api-keys',
    {
      schema: {
        tags: keyTags,
        summary: 'Créer la clé API (409 si une clé est déjà active)',
        description: 'La clé complète (plainTextKey) n’est rendue que dans cette réponse : seule son empreinte est gardée.',
        operationId: 'createApiKey',
        security,
        params: appIdKeyParams,
        body: apiKeyRequest,
        response: {
          201: success(apiKeyData, 'La clé, affichée en entier cette seule fois', { message: 'Clé API créée. Conservez-la : elle ne sera plus affichée.', data: newKey }),
          ...errorResponses(...BODY_ERRORS, ...APP_ERRORS, 'API_KEY_ALREADY_ACTIVE'),
        },
      },
    },
    async (request, reply) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      const key = await createApiKey(request.services, { applicationId: row.id, ...request.body });
      await recordAudit(request.services, auditActor(request), {
        action: 'API_KEY_CREATED',
        targetType: 'API_KEY',
        targetId: key.id,
        after: { applicationId: row.id, name: key.name, environment: key.environment, keyPrefix: key.keyPrefix, scopes: key.scopes, allowedIps: key.allowedIps },
      });
      return reply.code(201).send(ok(keyOut(key), 'Clé API créée. Conservez-la : elle ne sera plus affichée.', now()));
    },
  );

  r.get(
    '/api/v1/merchants/apps/:appId/api-keys',
    {
      schema: {
        tags: keyTags,
        summary: 'Lister les clés API (les plus récentes d’abord)',
        operationId: 'listApiKeys',
        security,
        params: appIdKeyParams,
        response: {
          200: success(z.array(apiKeyData), 'Les clés, sans leur secret', { message: 'Clés API récupérées.', data: [EXAMPLE_API_KEY_VIEW] }),
          ...errorResponses(...APP_ERRORS),
        },
      },
    },
    async (request) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: false });
      return ok((await listApiKeys(services.db, row.id)).map(keyOut), 'Clés API récupérées.', now());
    },
  );

  r.get(
    '/api/v1/merchants/apps/:appId/api-keys/active',
    {
      schema: {
        tags: keyTags,
        summary: 'Lire la clé API active',
        operationId: 'getActiveApiKey',
        security,
        params: appIdKeyParams,
        response: {
          200: success(apiKeyData, 'La clé active, sans son secret', { message: 'Clé API active récupérée.', data: EXAMPLE_API_KEY_VIEW }),
          ...errorResponses(...APP_ERRORS, 'API_KEY_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: false });
      const active = (await listApiKeys(services.db, row.id)).find((k) => k.active);
      if (!active) throw new ApiError('API_KEY_NOT_FOUND');
      return ok(keyOut(active), 'Clé API active récupérée.', now());
    },
  );

  r.patch(
    '/api/v1/merchants/apps/:appId/api-keys/active',
    {
      schema: {
        tags: keyTags,
        summary: 'Changer les portées ou la liste d’adresses autorisées de la clé active',
        description: 'La clé elle-même ne change pas ; la requête suivante est vérifiée avec les nouvelles valeurs.',
        operationId: 'updateApiKeyAccess',
        security,
        params: appIdKeyParams,
        body: apiKeyAccessRequest,
        response: {
          200: success(apiKeyData, 'La clé active, sans son secret', { message: 'Accès de la clé API mis à jour.', data: EXAMPLE_API_KEY_VIEW }),
          ...errorResponses(...BODY_ERRORS, ...APP_ERRORS, 'API_KEY_NOT_FOUND'),
        },
      },
    },
    async (request) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      const before = (await listApiKeys(services.db, row.id)).find((k) => k.active);
      const key = before ? await updateActiveKeyAccess(request.services, row.id, request.body) : null;
      if (!before || !key) throw new ApiError('API_KEY_NOT_FOUND');
      await recordAudit(request.services, auditActor(request), {
        action: 'API_KEY_ACCESS_CHANGED',
        targetType: 'API_KEY',
        targetId: key.id,
        before: { scopes: before.scopes, allowedIps: before.allowedIps },
        after: { scopes: key.scopes, allowedIps: key.allowedIps },
      });
      return ok(keyOut(key), 'Accès de la clé API mis à jour.', now());
    },
  );

  r.post(
    '/api/v1/merchants/apps/:appId/api-keys/rotate',
    {
      schema: {
        tags: keyTags,
        summary: 'Remplacer la clé API (l’ancienne est refusée immédiatement)',
        operationId: 'rotateApiKey',
        security,
        params: appIdKeyParams,
        body: apiKeyRequest,
        response: {
          201: success(apiKeyData, 'La nouvelle clé, affichée en entier cette seule fois', { message: 'Nouvelle clé API émise ; l’ancienne est révoquée.', data: newKey }),
          ...errorResponses(...BODY_ERRORS, ...APP_ERRORS, 'API_KEY_ALREADY_ACTIVE'),
        },
      },
    },
    async (request, reply) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      const before = (await listApiKeys(services.db, row.id)).find((k) => k.active);
      const key = await rotateApiKey(request.services, { applicationId: row.id, ...request.body });
      await recordAudit(request.services, auditActor(request), {
        action: 'API_KEY_ROTATED',
        targetType: 'API_KEY',
        targetId: key.id,
        before: before ? { keyId: before.id, keyPrefix: before.keyPrefix, environment: before.environment } : null,
        after: { applicationId: row.id, keyId: key.id, name: key.name, environment: key.environment, keyPrefix: key.keyPrefix, scopes: key.scopes, allowedIps: key.allowedIps },
      });
      return reply.code(201).send(ok(keyOut(key), 'Nouvelle clé API émise ; l’ancienne est révoquée.', now()));
    },
  );

  r.delete(
    '/api/v1/merchants/apps/:appId/api-keys',
    {
      schema: {
        tags: keyTags,
        summary: 'Révoquer la clé API active (204)',
        operationId: 'revokeApiKey',
        security,
        params: appIdKeyParams,
        response: { 204: noContent, ...errorResponses(...APP_ERRORS, 'API_KEY_NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const row = await findAccessibleApplication(request.services, requireAccount(request), request.params.appId, { write: true });
      const active = (await listApiKeys(services.db, row.id)).find((k) => k.active);
      if (!active || !(await revokeActiveKey(services.db, row.id, now()))) throw new ApiError('API_KEY_NOT_FOUND');
      await recordAudit(request.services, auditActor(request), {
        action: 'API_KEY_REVOKED',
        targetType: 'API_KEY',
        targetId: active.id,
        before: { active: true, keyPrefix: active.keyPrefix },
        after: { active: false },
      });
      return reply.code(204).send(undefined);
    },
  );
}
