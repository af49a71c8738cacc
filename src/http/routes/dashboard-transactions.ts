/**
 * Dashboard transaction routes, at the paths and in the shapes SharePay's dashboard calls,
 * bearer-authenticated, in two families built by the same code:
 *
 * - `/api/v1/merchants/…`: the caller's own transactions (a MERCHANT; staff accounts own none,
 *   so they see empty lists there and use the admin family);
 * - `/api/v1/admin/merchants/{id}/…`: any merchant's, for ADMIN and SUPPORT (read only; a
 *   MERCHANT gets 403 ACCESS_DENIED, an unknown merchant 404 USER_NOT_FOUND).
 *
 * Each family: `transactions` (pay-ins unless `direction` says PAY_OUT or ALL),
 * `transactions-in`, `transactions-out` (page, filters, newest first), their `/stats`, their
 * `/export` (CSV, streamed), their `/{transactionId}` (by UUID or reference, with the event
 * history; another merchant's answers 404 TRANSACTION_NOT_FOUND like an unknown one), and
 * `transactions/chart`. Plus `GET /api/v1/merchants/providers` and
 * `POST /api/v1/merchants/transactions/{transactionId}/status-check` (ask the operator now about
 * one of my PENDING transactions; status-check.ts). Without `environment`, lists,
 * stats, exports and the chart read the merchant's default (`dashboardEnvironment`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accountWithRole } from '../../dashboard/admin.ts';
import { dashboardEnvironment, type DashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import { merchantProviders } from '../../dashboard/merchant-providers.ts';
import { transactionChart } from '../../dashboard/transaction-chart.ts';
import { DEFAULT_DAY_ZONE } from '../../dashboard/reader-days.ts';
import {
  pageTransactions,
  transactionDetail,
  transactionRefundability,
  transactionStats,
  transactionWhere,
  type DashboardTransaction,
  type Direction,
  type TransactionFilter,
} from '../../dashboard/transactions.ts';
import { transactionsCsv } from '../../dashboard/transactions-csv.ts';
import { checkTransactionNow, STATUS_CHECK_INTERVAL_MS } from '../../dashboard/status-check.ts';
import { oldestApplicationCurrency } from '../../accounts/applications.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { uuidParam } from '../schemas/common.ts';
import { pageOf, toPage, ts } from '../schemas/dashboard.ts';
import {
  allTransactionFilterQuery,
  allTransactionListQuery,
  chartData,
  chartQuery,
  merchantProviderData,
  transactionDetailData,
  transactionFilterOnlyQuery,
  transactionItem,
  transactionKeyParams,
  transactionListQuery,
  transactionStatsData,
} from '../schemas/transactions.ts';
import { bearerSecurity as security } from './dashboard-auth.ts';
import { BEARER_ERRORS, errorResponses, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS, EXAMPLE_TIME, EXAMPLE_TRANSACTION_ITEM, examplePage } from '../schemas/examples.ts';
import { CSV_COLUMNS } from '../../dashboard/transactions-csv.ts';

/** Codes of every transaction read: the filters, the bearer, the role, the merchant and the application. */
const READ_ERRORS = ['INVALID_PARAMETER', ...BEARER_ERRORS, 'ACCESS_DENIED', 'USER_NOT_FOUND', 'APP_NOT_FOUND'] as const;
const detailExample = {
  ...EXAMPLE_TRANSACTION_ITEM,
  isRefundable: true,
  refundableAmount: 5000,
  events: [
    { id: 2, fromStatus: null, toStatus: 'PENDING', cause: 'CREATED', failureCode: null, detail: null, createdAt: EXAMPLE_TIME },
    { id: 3, fromStatus: 'PENDING', toStatus: 'SUCCESS', cause: 'STATUS_QUERY', failureCode: null, detail: null, createdAt: '2026-11-20T10:00:03.000' },
  ],
};
/** The CSV export's first lines (header, then one transaction). */
const CSV_EXAMPLE =
  `${CSV_COLUMNS.join(',')}\r\n` +
  `${EXAMPLE_IDS.transaction},${EXAMPLE_IDS.payIn},CMD-43,CHARGE,PAY_IN,TEST,SUCCESS,5000,75,4925,0,XAF,MTN_MOMO_CM,237677000001,Awa Ngono,awa@example.cm,Commande 43,Boutique Awa,,${EXAMPLE_TIME},2026-11-20T10:00:03.000,2026-11-20T10:00:03.000\r\n`;
/**
 * The operationId of `verb` + `noun` in a family: `listDashboardPayIns` for the merchant's own,
 * `adminListMerchantPayIns` for the administration's (the merchant API has `listTransactions`).
 */
const operationIdOf = (family: { prefix: string }, verb: string, noun: string) =>
  family.prefix.startsWith('/api/v1/admin') ? `admin${verb[0]!.toUpperCase()}${verb.slice(1)}Merchant${noun}` : `${verb}Dashboard${noun}`;
const NOUNS = { transactions: 'Transactions', 'transactions-in': 'PayIns', 'transactions-out': 'PayOuts' } as const;
const NOUN = { transactions: 'Transaction', 'transactions-in': 'PayIn', 'transactions-out': 'PayOut' } as const;

/** Serialises a transaction's dates like every dashboard answer. */
export function transactionOut(t: DashboardTransaction) {
  return { ...t, createdAt: ts(t.createdAt), updatedAt: ts(t.updatedAt), completedAt: ts(t.completedAt) };
}

/** A transaction's detail as the dashboard answers it: the transaction, what of it may be refunded, its history. */
async function detailOut(services: Services, detail: Awaited<ReturnType<typeof transactionDetail>>) {
  return {
    ...transactionOut(detail),
    ...(await transactionRefundability(services, detail)),
    events: detail.events.map((e) => ({ ...e, createdAt: ts(e.createdAt) })),
  };
}

/** The query fields that make a `TransactionFilter`. */
type FilterQuery = {
  status?: TransactionFilter['status'];
  type?: TransactionFilter['type'];
  appId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  provider?: string | undefined;
  search?: string | undefined;
  environment?: DashboardEnvironment | undefined;
  /** `…/transactions` only (the schema defaults it to PAY_IN); ALL: both directions. */
  direction?: Direction | 'ALL' | undefined;
};

/** The filter of a list, its stats or its export: `direction` is the list's, else the query's; the environment is resolved. */
async function filterOf(services: Services, merchantId: string, query: FilterQuery, direction: Direction | undefined): Promise<TransactionFilter> {
  return {
    direction: direction ?? (query.direction === 'ALL' ? undefined : query.direction),
    status: query.status,
    type: query.type,
    applicationId: query.appId,
    from: query.from,
    to: query.to,
    provider: query.provider,
    search: query.search,
    environment: await dashboardEnvironment(services.db, merchantId, query.environment),
  };
}

/** One family of routes: where it lives and whose transactions it reads. */
interface Family {
  /** Path prefix, e.g. `/api/v1/merchants` or `/api/v1/admin/merchants/:id`. */
  prefix: string;
  /** Params schema fields of the prefix (the admin family's merchant `id`). */
  params: Record<string, z.ZodType>;
  tags: string[];
  /** Who the request reads for (resolves and checks the merchant). */
  merchantOf(request: FastifyRequest): Promise<string>;
  /** Role check run before validation (so a MERCHANT gets 403 on the admin family whatever the input). */
  onRequest?: (request: FastifyRequest) => Promise<void>;
  /** Staff see each event's diagnostic `detail`. */
  isStaff: boolean;
  /** Who, in summaries. */
  whose: string;
}

/** `YYYY-MM-DD` of today (server local time), for the export's file name. */
function today(services: Services): string {
  return ts(services.clock.now()).slice(0, 10);
}

function registerFamily(app: FastifyInstance, services: Services, family: Family): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => services.clock.now();
  const { prefix, tags } = family;
  const hooks = family.onRequest ? { onRequest: family.onRequest } : {};
  const withParams = <T extends Record<string, z.ZodType>>(extra: T) => z.object({ ...family.params, ...extra });
  const lists: { path: keyof typeof NOUNS; direction: Direction | undefined; label: string }[] = [
    { path: 'transactions', direction: undefined, label: 'Transactions (paiements par défaut ; direction=PAY_OUT ou ALL)' },
    { path: 'transactions-in', direction: 'PAY_IN', label: 'Paiements reçus (pay-in)' },
    { path: 'transactions-out', direction: 'PAY_OUT', label: 'Virements et retraits (pay-out)' },
  ];

  for (const list of lists) {
    const listQuery = list.direction ? transactionListQuery : allTransactionListQuery;
    const filterQuery = list.direction ? transactionFilterOnlyQuery : allTransactionFilterQuery;

    r.get(
      `${prefix}/${list.path}`,
      {
        schema: {
          tags,
          summary: `${list.label} ${family.whose} : page, filtres, du plus récent au plus ancien`,
          operationId: operationIdOf(family, 'list', NOUNS[list.path]),
          security,
          ...(Object.keys(family.params).length > 0 ? { params: withParams({}) } : {}),
          querystring: listQuery,
          response: {
            200: success(pageOf(transactionItem), 'Une page de transactions', { message: 'Transactions récupérées.', data: examplePage(EXAMPLE_TRANSACTION_ITEM) }),
            ...errorResponses(...READ_ERRORS),
          },
        },
        ...hooks,
      },
      async (request) => {
        const merchantId = await family.merchantOf(request);
        const q = request.query as FilterQuery & { page: number; size: number };
        const { rows, total } = await pageTransactions(services.db, merchantId, await filterOf(services, merchantId, q, list.direction), q.page, q.size);
        return ok(toPage(rows.map(transactionOut), total, q.page, q.size), 'Transactions récupérées.', now());
      },
    );

    r.get(
      `${prefix}/${list.path}/stats`,
      {
        schema: {
          tags,
          summary: `${list.label} ${family.whose} : nombres par statut et volumes (mêmes filtres que la liste)`,
          operationId: operationIdOf(family, 'get', `${NOUN[list.path]}Stats`),
          security,
          ...(Object.keys(family.params).length > 0 ? { params: withParams({}) } : {}),
          querystring: filterQuery,
          response: {
            200: success(transactionStatsData, 'Les compteurs et volumes', {
              message: 'Statistiques récupérées.',
              data: { total: 12, successCount: 9, pendingCount: 1, failedCount: 2, cancelledCount: 0, refundedCount: 0, totalVolume: 60000, successVolume: 45000 },
            }),
            ...errorResponses(...READ_ERRORS),
          },
        },
        ...hooks,
      },
      async (request) => {
        const merchantId = await family.merchantOf(request);
        const stats = await transactionStats(services.db, merchantId, await filterOf(services, merchantId, request.query as FilterQuery, list.direction));
        return ok(stats, 'Statistiques récupérées.', now());
      },
    );

    r.get(
      `${prefix}/${list.path}/export`,
      {
        schema: {
          tags,
          summary: `${list.label} ${family.whose} : export CSV (mêmes filtres que la liste, transmis au fil de l'eau)`,
          description:
            'text/csv; charset=utf-8, UTF-8 avec BOM, séparateur virgule, fins de ligne CRLF, une ligne d’en-tête ; ' +
            'montants en unités de base. Lu par lots de 500 lignes : la mémoire reste constante quel que soit le nombre de lignes.',
          operationId: operationIdOf(family, 'export', NOUNS[list.path]),
          security,
          ...(Object.keys(family.params).length > 0 ? { params: withParams({}) } : {}),
          querystring: filterQuery,
          response: {
            200: z.string().meta({ description: 'Fichier CSV (text/csv)', examples: [CSV_EXAMPLE] }),
            ...errorResponses(...READ_ERRORS),
          },
        },
        ...hooks,
      },
      async (request, reply: FastifyReply) => {
        const merchantId = await family.merchantOf(request);
        // Built (and its application checked) before the first byte, so a bad filter is still a JSON error.
        const query = await transactionWhere(services.db, merchantId, await filterOf(services, merchantId, request.query as FilterQuery, list.direction));
        const stream = transactionsCsv(services.db, query, (error) => request.log.error({ err: error, merchantId }, 'CSV export failed'));
        return reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${list.path}-${today(request.services)}.csv"`)
          .header('cache-control', 'no-store')
          .send(stream);
      },
    );

    r.get(
      `${prefix}/${list.path}/:transactionId`,
      {
        schema: {
          tags,
          summary: `${list.label} ${family.whose} : une transaction (UUID ou référence) et son historique`,
          operationId: operationIdOf(family, 'get', NOUN[list.path]),
          security,
          params: withParams(transactionKeyParams.shape),
          response: {
            200: success(transactionDetailData, 'La transaction et ses changements de statut', { message: 'Transaction récupérée.', data: detailExample }),
            ...errorResponses(...READ_ERRORS, 'TRANSACTION_NOT_FOUND'),
          },
        },
        ...hooks,
      },
      async (request) => {
        const merchantId = await family.merchantOf(request);
        const { transactionId } = request.params as { transactionId: string };
        const detail = await transactionDetail(services.db, merchantId, transactionId, { direction: list.direction, withDetail: family.isStaff });
        return ok(await detailOut(services, detail), 'Transaction récupérée.', now());
      },
    );
  }

  r.get(
    `${prefix}/transactions/chart`,
    {
      schema: {
        tags,
        summary: `Graphique ${family.whose} : nombres et volumes par heure ou par jour (fuseau timeZone, UTC par défaut), par statut, moyen de paiement ou application`,
        operationId: operationIdOf(family, 'get', 'TransactionChart'),
        security,
        ...(Object.keys(family.params).length > 0 ? { params: withParams({}) } : {}),
        querystring: chartQuery,
        response: {
          200: success(chartData, 'Les séries du graphique', {
            message: 'Graphique récupéré.',
            data: {
              interval: 'LAST_7_DAYS',
              groupBy: 'STATUS',
              currency: 'XAF',
              labels: ['2026-11-14', '2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'],
              series: [{ key: 'SUCCESS', counts: [0, 1, 0, 2, 0, 0, 3], volumes: [0, 5000, 0, 12000, 0, 0, 15000] }],
            },
          }),
          ...errorResponses(...READ_ERRORS),
        },
      },
      ...hooks,
    },
    async (request) => {
      const merchantId = await family.merchantOf(request);
      const q = request.query as z.output<typeof chartQuery>;
      const currency = q.currency ?? (await oldestApplicationCurrency(services.db, merchantId));
      const chart = await transactionChart(services.db, services.clock, merchantId, {
        interval: q.interval,
        groupBy: q.groupBy,
        currency,
        timeZone: q.timeZone ?? DEFAULT_DAY_ZONE,
        filter: { direction: q.direction, environment: await dashboardEnvironment(services.db, merchantId, q.environment), applicationId: q.appId },
      });
      return ok(chart, 'Graphique récupéré.', now());
    },
  );
}

/** Registers both families and `GET /api/v1/merchants/providers`. */
export async function dashboardTransactionRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.addHook('onRequest', dashboardAuthHook(services));

  registerFamily(app, services, {
    prefix: '/api/v1/merchants',
    params: {},
    tags: ['Dashboard : transactions'],
    whose: '(les miennes)',
    isStaff: false,
    merchantOf: async (request) => requireAccount(request).accountId,
  });

  registerFamily(app, services, {
    prefix: '/api/v1/admin/merchants/:id',
    params: { id: uuidParam },
    tags: ['Administration'],
    whose: "d'un marchand",
    isStaff: true,
    onRequest: async (request) => requireRole(requireAccount(request), 'ADMIN', 'SUPPORT'),
    merchantOf: async (request) => (await accountWithRole(services.db, (request.params as { id: string }).id, ['MERCHANT'])).id,
  });

  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/api/v1/merchants/providers',
    {
      schema: {
        tags: ['Dashboard : transactions'],
        summary: 'Moyens de paiement actifs utilisables (pour les comptes de retrait), avec mes frais',
        operationId: 'listMerchantProviders',
        security,
        response: {
          200: success(z.array(merchantProviderData), 'Les moyens de paiement', {
            message: 'Moyens de paiement récupérés.',
            data: [
              {
                code: 'MTN_MOMO_CM',
                name: 'MTN Mobile Money Cameroun',
                type: 'MOBILE_MONEY',
                country: 'CM',
                currency: 'XAF',
                minAmount: 100,
                maxAmount: 1000000,
                feePercentage: 1.5,
                feeFixed: 0,
                payOutFeePercentage: 0,
                payOutFeeFixed: 0,
                environments: ['TEST'],
              },
            ],
          }),
          ...errorResponses(...BEARER_ERRORS),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      return ok(await merchantProviders(services.db, services.connectors, account.accountId), 'Moyens de paiement récupérés.', services.clock.now());
    },
  );

  r.post(
    '/api/v1/merchants/transactions/:transactionId/status-check',
    {
      schema: {
        tags: ['Dashboard : transactions'],
        summary: "Demander maintenant son statut à l'opérateur pour l'une de mes transactions en attente",
        description:
          "Pose à l'opérateur la même question que la relève périodique et applique sa réponse : réussie ou échouée, la " +
          "transaction change de statut ; une réponse ambiguë (en attente, opérateur injoignable, délai dépassé) la laisse " +
          'PENDING. Une transaction déjà terminée est renvoyée telle quelle, sans question. Au plus une vérification par ' +
          `transaction toutes les ${STATUS_CHECK_INTERVAL_MS / 1000} s : 429 TOO_MANY_REQUESTS (avec Retry-After) sinon. ` +
          'Répond la transaction telle qu’elle est après la vérification, avec son historique.',
        operationId: 'checkTransactionStatus',
        security,
        params: transactionKeyParams,
        response: {
          200: success(transactionDetailData, "La transaction après la réponse de l'opérateur", { message: "Statut demandé à l'opérateur.", data: detailExample }),
          ...errorResponses(...READ_ERRORS, 'TRANSACTION_NOT_FOUND', 'TOO_MANY_REQUESTS'),
        },
      },
    },
    async (request) => {
      const account = requireAccount(request);
      // Asking an operator acts on a merchant's money: staff accounts have none of their own.
      requireRole(account, 'MERCHANT');
      const { transactionId } = request.params;
      const outcome = await checkTransactionNow(request.services, account.accountId, transactionId);
      const detail = await transactionDetail(services.db, account.accountId, transactionId, { withDetail: false });
      return ok(
        await detailOut(services, detail),
        outcome === 'FINAL' ? 'Transaction déjà terminée : rien à demander.' : "Statut demandé à l'opérateur.",
        services.clock.now(),
      );
    },
  );
}
