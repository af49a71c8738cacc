/**
 * Reconciliation routes for staff (bearer): runs (`POST` starts one, ADMIN; `GET` lists them),
 * cases filtered by kind, status and rail, one case with its evidence (ADMIN and SUPPORT), and a
 * case's resolution (ADMIN only; 403 ACCESS_DENIED otherwise). A thin adapter over
 * reconciliation/.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CASE_KINDS,
  RESOLUTION_ACTIONS,
  getCase,
  pageCases,
  pageRuns,
  resolveCase,
  runReconciliation,
  type CaseRow,
  type RunRow,
  type RunSummary,
} from '../../reconciliation/index.ts';
import type { Services } from '../../services.ts';
import { adminOnly, auditActor, dashboardAuthHook, staffRead } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { requiredText } from '../schemas/common.ts';
import { idParams, pageOf, pageQuery, toPage } from '../schemas/dashboard.ts';
import { BODY_ERRORS, STAFF_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';

const RAIL = z.string().trim().regex(/^[A-Z][A-Z0-9_]{1,39}$/, 'doit être un code de moyen de paiement (ex. WAVE_SN)');
const ISO = z.iso.datetime({ offset: true });
const EXAMPLE_RUN_ID = '6f1c2b9e-3d4a-4e5f-8a7b-9c0d1e2f3a4b';
const EXAMPLE_CASE_ID = '7a2d3c0f-4e5b-4f60-9b8c-0d1e2f3a4b5c';

const runData = z.object({
  id: z.string(),
  railCode: z.string(),
  periodFrom: z.string(),
  periodTo: z.string(),
  source: z.enum(['API', 'FILE']),
  status: z.string(),
  operatorRecords: z.number(),
  koloTransactions: z.number(),
  matched: z.number(),
  casesOpened: z.number(),
  drift: z.number().describe("Σ des montants des écarts ouverts du moyen de paiement à la fin de l'exécution, en unité de base"),
  currency: z.string().nullable(),
  createdAt: z.string(),
});
const RUN = {
  id: EXAMPLE_RUN_ID,
  railCode: 'WAVE_SN',
  periodFrom: '2026-11-19T00:00:00.000Z',
  periodTo: '2026-11-20T00:00:00.000Z',
  source: 'API' as const,
  status: 'DONE',
  operatorRecords: 120,
  koloTransactions: 119,
  matched: 119,
  casesOpened: 1,
  drift: 5000,
  currency: 'XOF',
  createdAt: '2026-11-20T04:00:00.000Z',
};

const caseData = z.object({
  id: z.string(),
  kind: z.enum(CASE_KINDS),
  status: z.enum(['OPEN', 'RESOLVED']),
  railCode: z.string(),
  currency: z.string(),
  amount: z.number().describe("Montant en cause, en unité de base (0 pour MERCHANT_NOT_TOLD)"),
  transactionId: z.string().nullable(),
  operatorTransactionId: z.string().nullable(),
  evidence: z.record(z.string(), z.unknown()).describe("Les trois côtés : l'opérateur (operator), Kolo (kolo : statut, écritures sur le float), le marchand (merchant : événements reçus ou lus)"),
  runId: z.string(),
  resolution: z.enum(RESOLUTION_ACTIONS).nullable(),
  resolutionNote: z.string().nullable(),
  resolvedBy: z.string().nullable(),
  resolvedAt: z.string().nullable(),
  createdAt: z.string(),
});
const CASE = {
  id: EXAMPLE_CASE_ID,
  kind: 'OPERATOR_ONLY' as const,
  status: 'OPEN' as const,
  railCode: 'WAVE_SN',
  currency: 'XOF',
  amount: 5000,
  transactionId: null,
  operatorTransactionId: 'T4F2A9C01B7D3E5F6',
  evidence: { operator: { operatorTransactionId: 'T4F2A9C01B7D3E5F6', reference: null, amount: 5000, currency: 'XOF', direction: 'IN', status: 'SUCCEEDED', kind: 'PAYMENT', at: '2026-11-19T09:12:00.000Z' }, kolo: null, merchant: null, matchedBy: null },
  runId: EXAMPLE_RUN_ID,
  resolution: null,
  resolutionNote: null,
  resolvedBy: null,
  resolvedAt: null,
  createdAt: '2026-11-20T04:00:00.000Z',
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const runOut = (r: RunRow) => ({
  id: r.id,
  railCode: r.railCode,
  periodFrom: r.periodFrom.toISOString(),
  periodTo: r.periodTo.toISOString(),
  source: r.source as 'API' | 'FILE',
  status: r.status,
  operatorRecords: r.operatorRecords,
  koloTransactions: r.koloTransactions,
  matched: r.matched,
  casesOpened: r.casesOpened,
  drift: r.drift,
  currency: r.currency,
  createdAt: r.createdAt.toISOString(),
});
const summaryOut = (s: RunSummary, now: Date) => ({
  id: s.id,
  railCode: s.railCode,
  periodFrom: s.from.toISOString(),
  periodTo: s.to.toISOString(),
  source: s.source,
  status: 'DONE',
  operatorRecords: s.operatorRecords,
  koloTransactions: s.koloTransactions,
  matched: s.matched,
  casesOpened: s.casesOpened,
  drift: s.drift,
  currency: s.currency,
  createdAt: now.toISOString(),
});
const caseOut = (c: CaseRow) => ({
  id: c.id,
  kind: c.kind as (typeof CASE_KINDS)[number],
  status: c.status as 'OPEN' | 'RESOLVED',
  railCode: c.railCode,
  currency: c.currency,
  amount: c.amount,
  transactionId: c.transactionId,
  operatorTransactionId: c.operatorTransactionId,
  evidence: c.evidence as Record<string, unknown>,
  runId: c.runId,
  resolution: c.resolution as (typeof RESOLUTION_ACTIONS)[number] | null,
  resolutionNote: c.resolutionNote,
  resolvedBy: c.resolvedBy,
  resolvedAt: iso(c.resolvedAt),
  createdAt: c.createdAt.toISOString(),
});

/** Registers /api/v1/admin/reconciliation/*. */
export async function dashboardReconciliationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const now = () => services.clock.now();
  const tags = ['Rapprochement'];

  r.post(
    '/api/v1/admin/reconciliation/runs',
    {
      schema: {
        tags,
        operationId: 'adminRunReconciliation',
        summary: "Rapprocher un moyen de paiement LIVE sur une période (API de l'opérateur ou relevé CSV importé)",
        security,
        body: z
          .object({
            railCode: RAIL,
            from: ISO.describe('Début de la période (inclus), ISO 8601'),
            to: ISO.describe('Fin de la période (exclue), ISO 8601 ; 31 jours au plus'),
            file: z.string().min(1).max(900_000).optional().describe("Texte du relevé CSV de l'opérateur (MTN, Orange) ; absent : son API (Wave, M-Pesa)"),
          })
          .meta({ examples: [{ railCode: 'WAVE_SN', from: '2026-11-19T00:00:00Z', to: '2026-11-20T00:00:00Z' }] }),
        response: {
          201: success(runData, "L'exécution et ses comptes", { message: 'Rapprochement effectué.', data: RUN }),
          ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'PROVIDER_NOT_FOUND', 'STATEMENT_FILE_INVALID', 'STATEMENT_FILE_REQUIRED', 'OPERATOR_RECORDS_UNAVAILABLE'),
        },
      },
      onRequest: adminOnly,
    },
    async (request, reply) => {
      const { railCode, from, to, file } = request.body;
      const summary = await runReconciliation(request.services, { railCode, from: new Date(from), to: new Date(to), ...(file !== undefined ? { file } : {}), startedBy: request.account?.accountId ?? null });
      return reply.code(201).send(ok(summaryOut(summary, now()), 'Rapprochement effectué.', now()));
    },
  );

  r.get(
    '/api/v1/admin/reconciliation/runs',
    {
      schema: {
        tags,
        operationId: 'adminListReconciliationRuns',
        summary: 'Lister les exécutions de rapprochement (les plus récentes en premier)',
        security,
        querystring: pageQuery.extend({ railCode: RAIL.optional() }),
        response: { 200: success(pageOf(runData), 'Une page d’exécutions', { message: 'Exécutions récupérées.', data: toPage([RUN], 1, 0, 20) }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER') },
      },
      onRequest: staffRead,
    },
    async (request) => {
      const { page, size, railCode } = request.query;
      const { rows, total } = await pageRuns(services.db, { railCode, page, size });
      return ok(toPage(rows.map(runOut), total, page, size), 'Exécutions récupérées.', now());
    },
  );

  r.get(
    '/api/v1/admin/reconciliation/cases',
    {
      schema: {
        tags,
        operationId: 'adminListReconciliationCases',
        summary: 'Lister les écarts de rapprochement (filtre par nature, statut, moyen de paiement)',
        security,
        querystring: pageQuery.extend({ kind: z.enum(CASE_KINDS).optional(), status: z.enum(['OPEN', 'RESOLVED']).optional(), railCode: RAIL.optional() }),
        response: { 200: success(pageOf(caseData), 'Une page d’écarts', { message: 'Écarts récupérés.', data: toPage([CASE], 1, 0, 20) }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER') },
      },
      onRequest: staffRead,
    },
    async (request) => {
      const { page, size, kind, status, railCode } = request.query;
      const { rows, total } = await pageCases(services.db, { kind, status, railCode, page, size });
      return ok(toPage(rows.map(caseOut), total, page, size), 'Écarts récupérés.', now());
    },
  );

  r.get(
    '/api/v1/admin/reconciliation/cases/:id',
    {
      schema: {
        tags,
        operationId: 'adminGetReconciliationCase',
        summary: 'Lire un écart et ses preuves',
        security,
        params: idParams,
        response: { 200: success(caseData, "L'écart", { message: 'Écart récupéré.', data: CASE }), ...errorResponses(...STAFF_ERRORS, 'INVALID_PARAMETER', 'RECONCILIATION_CASE_NOT_FOUND') },
      },
      onRequest: staffRead,
    },
    async (request) => ok(caseOut(await getCase(services.db, request.params.id)), 'Écart récupéré.', now()),
  );

  r.post(
    '/api/v1/admin/reconciliation/cases/:id/resolution',
    {
      schema: {
        tags,
        operationId: 'adminResolveReconciliationCase',
        summary: 'Résoudre un écart par une action (écritures, machine à états, journal d’audit)',
        security,
        params: idParams,
        body: z
          .object({ action: z.enum(RESOLUTION_ACTIONS), note: requiredText(500).describe('Pourquoi (journal d’audit)') })
          .meta({ examples: [{ action: 'WRITE_OFF', note: 'Ajustement MTN du 19/11 confirmé par le support opérateur' }] }),
        response: {
          200: success(caseData, "L'écart résolu", { message: 'Écart résolu.', data: { ...CASE, status: 'RESOLVED', resolution: 'WRITE_OFF', resolutionNote: 'Confirmé', resolvedBy: EXAMPLE_RUN_ID, resolvedAt: '2026-11-20T09:00:00.000Z' } }),
          ...errorResponses(...BODY_ERRORS, ...STAFF_ERRORS, 'INVALID_PARAMETER', 'INSUFFICIENT_BALANCE', 'RECONCILIATION_CASE_NOT_FOUND', 'RECONCILIATION_CASE_CLOSED', 'RECONCILIATION_ACTION_NOT_APPLICABLE'),
        },
      },
      onRequest: adminOnly,
    },
    async (request) => {
      const resolved = await resolveCase(request.services, auditActor(request), { caseId: request.params.id, action: request.body.action, note: request.body.note });
      return ok(caseOut(resolved), 'Écart résolu.', now());
    },
  );
}
