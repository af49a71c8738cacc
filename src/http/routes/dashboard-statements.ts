/**
 * Merchant statements (bearer-authenticated, MERCHANT only: 403 ACCESS_DENIED for staff, who own
 * no balances): a short range as JSON or CSV at once, any range prepared in the background and
 * downloaded when READY. A merchant only ever reads their own applications' balances.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listStatements, requestStatement, statementCsv, statementFile, statementNow, STATEMENT_BALANCES } from '../../statements/index.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';

const READ_ERRORS = [...BEARER_ERRORS, 'ACCESS_DENIED', 'INVALID_PARAMETER', 'VALIDATION_ERROR'] as const;
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'doit être une date AAAA-MM-JJ').refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), 'doit être une date valide');
const rangeQuery = z.object({ from: day.describe('Premier jour (UTC), inclus'), to: day.describe('Dernier jour (UTC), inclus') });
const balance = z.enum(STATEMENT_BALANCES);

const statementData = z.object({
  from: z.string(),
  to: z.string(),
  totals: z.array(
    z.object({
      environment: z.string(),
      currency: z.string(),
      balance,
      opening: z.number().describe('Solde au début du premier jour (unités de base)'),
      credits: z.number(),
      debits: z.number(),
      closing: z.number().describe('opening + credits − debits'),
      movementCount: z.number().int(),
    }),
  ),
  movements: z.array(
    z.object({
      postedAt: z.string(),
      environment: z.string(),
      currency: z.string(),
      balance,
      applicationId: z.string(),
      applicationName: z.string(),
      entryKind: z.string(),
      reference: z.string().nullable(),
      amount: z.number().describe('Signé : + crédit au marchand, − débit'),
      balanceAfter: z.number(),
    }),
  ),
});

const statementRequestData = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string(),
  status: z.enum(['PENDING', 'PREPARING', 'READY', 'FAILED']),
  createdAt: z.string(),
  readyAt: z.string().nullable(),
});

const EXAMPLE_STATEMENT = {
  from: '2026-11-01',
  to: '2026-11-30',
  totals: [{ environment: 'LIVE', currency: 'XAF', balance: 'AVAILABLE' as const, opening: 10_000, credits: 4_925, debits: 5_000, closing: 9_925, movementCount: 2 }],
  movements: [],
};
const EXAMPLE_REQUEST = { id: '7b0b6a9e-2f4c-4b8e-9d3a-1c2e3f4a5b6c', from: '2026-01-01', to: '2026-11-30', status: 'PENDING' as const, createdAt: '2026-11-30T10:00:00.000Z', readyAt: null };
const CSV_EXAMPLE = '\uFEFFline,postedAt,environment,currency,balance,application,entryKind,reference,amount,balanceAfter\r\nOPENING,2026-11-01T00:00:00.000Z,LIVE,XAF,AVAILABLE,,,,10000,10000\r\n';

/** Registers /api/v1/merchants/statement* . */
export async function dashboardStatementRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Relevés'];
  const merchantOnly = async (request: Parameters<typeof requireAccount>[0]) => requireRole(requireAccount(request), 'MERCHANT');
  const merchantOf = (request: Parameters<typeof requireAccount>[0]) => requireAccount(request).accountId;
  const csvHeaders = { 'content-type': 'text/csv; charset=utf-8', 'cache-control': 'no-store' };

  r.get(
    '/api/v1/merchants/statement',
    {
      schema: {
        tags,
        operationId: 'getStatement',
        summary: 'Relevé des soldes sur une période courte',
        description: `Chaque mouvement des soldes AVAILABLE, PENDING et RESERVED des applications du marchand, avec les soldes d'ouverture et de clôture par environnement et devise (ouverture + mouvements = clôture). Au plus STATEMENT_SYNC_MAX_DAYS jours (31 par défaut) ; au-delà, POST /api/v1/merchants/statements.`,
        security,
        querystring: rangeQuery,
        response: { 200: success(statementData, 'Le relevé', { message: 'Relevé récupéré.', data: EXAMPLE_STATEMENT }), ...errorResponses(...READ_ERRORS) },
      },
      onRequest: merchantOnly,
    },
    async (request) => ok(await statementNow(services, merchantOf(request), request.query.from, request.query.to), 'Relevé récupéré.', services.clock.now()),
  );

  r.get(
    '/api/v1/merchants/statement/csv',
    {
      schema: {
        tags,
        operationId: 'exportStatement',
        summary: 'Relevé des soldes sur une période courte, en CSV',
        description: "text/csv; charset=utf-8, UTF-8 avec BOM, virgule, CRLF ; une ligne OPENING par solde, une ligne MOVEMENT par mouvement, une ligne CLOSING par solde ; montants en unités de base.",
        security,
        querystring: rangeQuery,
        response: { 200: z.string().meta({ description: 'Fichier CSV (text/csv)', examples: [CSV_EXAMPLE] }), ...errorResponses(...READ_ERRORS) },
      },
      onRequest: merchantOnly,
    },
    async (request, reply) => {
      const { from, to } = request.query;
      const csv = statementCsv(await statementNow(services, merchantOf(request), from, to));
      return reply.headers({ ...csvHeaders, 'content-disposition': `attachment; filename="releve-${from}-${to}.csv"` }).send(csv);
    },
  );

  r.post(
    '/api/v1/merchants/statements',
    {
      schema: {
        tags,
        operationId: 'requestStatement',
        summary: 'Préparer un relevé en arrière-plan',
        description: 'Pour toute période (une longue en particulier) : le relevé est préparé en arrière-plan ; son statut passe à READY, puis il se télécharge en CSV.',
        security,
        body: rangeQuery.meta({ examples: [{ from: '2026-01-01', to: '2026-11-30' }] }),
        response: { 202: success(statementRequestData, 'La demande de relevé', { message: 'Relevé en préparation.', data: EXAMPLE_REQUEST }), ...errorResponses(...READ_ERRORS, ...BODY_ERRORS) },
      },
      onRequest: merchantOnly,
    },
    async (request, reply) => {
      const view = await requestStatement(request.services, merchantOf(request), request.body.from, request.body.to);
      return reply.code(202).send(ok(view, 'Relevé en préparation.', services.clock.now()));
    },
  );

  r.get(
    '/api/v1/merchants/statements',
    {
      schema: {
        tags,
        operationId: 'listStatements',
        summary: 'Relevés préparés en arrière-plan (50 derniers)',
        security,
        response: { 200: success(z.array(statementRequestData), 'Les demandes de relevé', { message: 'Relevés récupérés.', data: [EXAMPLE_REQUEST] }), ...errorResponses(...BEARER_ERRORS, 'ACCESS_DENIED') },
      },
      onRequest: merchantOnly,
    },
    async (request) => ok(await listStatements(services, merchantOf(request)), 'Relevés récupérés.', services.clock.now()),
  );

  r.get(
    '/api/v1/merchants/statements/:id/csv',
    {
      schema: {
        tags,
        operationId: 'downloadStatement',
        summary: 'Télécharger un relevé préparé (CSV)',
        security,
        params: z.object({ id: z.uuid() }),
        response: {
          200: z.string().meta({ description: 'Fichier CSV (text/csv)', examples: [CSV_EXAMPLE] }),
          ...errorResponses(...BEARER_ERRORS, 'ACCESS_DENIED', 'INVALID_PARAMETER', 'RESOURCE_NOT_FOUND', 'STATEMENT_NOT_READY'),
        },
      },
      onRequest: merchantOnly,
    },
    async (request, reply) => {
      const file = await statementFile(services, merchantOf(request), request.params.id);
      return reply.headers({ ...csvHeaders, 'content-disposition': `attachment; filename="releve-${file.from}-${file.to}.csv"` }).send(file.csv);
    },
  );
}
