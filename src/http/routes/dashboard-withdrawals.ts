/**
 * Dashboard withdrawal routes, at the paths SharePay's dashboard calls: withdrawal accounts,
 * automatic-withdrawal configuration, and `withdraw`. Bearer-authenticated; a merchant only reaches
 * their own accounts and applications. Without `environment`, the configuration and `withdraw` use
 * the merchant's default one (`dashboardEnvironment`).
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addWithdrawalAccount,
  deleteWithdrawalAccount,
  getWithdrawalConfig,
  listWithdrawalAccounts,
  putWithdrawalConfig,
  setDefaultWithdrawalAccount,
  withdraw,
  WITHDRAWAL_MODES,
  WITHDRAWAL_PERIODS,
  type WithdrawalAccountRow,
  type WithdrawalConfigView,
} from '../../withdrawals/index.ts';
import { withdrawalAccountViews, type WithdrawalAccountView } from '../../dashboard/withdrawal-account-views.ts';
import { dashboardEnvironment } from '../../dashboard/dashboard-environment.ts';
import type { Services } from '../../services.ts';
import { dashboardAuthHook, requireAccount, requireRole } from '../dashboard-auth.ts';
import { ok } from '../envelope.ts';
import { BEARER_ERRORS, BODY_ERRORS, errorResponses, noContent, success } from '../schemas/openapi.ts';
import { EXAMPLE_IDS, EXAMPLE_TIME } from '../schemas/examples.ts';
import { amountSchema, currencySchema, optionalText, requiredText, uuidParam } from '../schemas/common.ts';
import { dashboardEnvironmentQuery, idParams, ts } from '../schemas/dashboard.ts';
import { bearerSecurity } from './dashboard-auth.ts';

/** Codes of every withdrawal route: the bearer, and staff accounts (which have no money of their own). */
const MERCHANT_ERRORS = [...BEARER_ERRORS, 'ACCESS_DENIED'] as const;
const ACCOUNT = {
  id: EXAMPLE_IDS.withdrawalAccount,
  providerCode: 'MTN_MOMO_CM',
  providerName: 'MTN Mobile Money Cameroun',
  providerType: 'MOBILE_MONEY',
  accountNumber: '237677000001',
  accountName: 'Awa Ngono',
  isDefault: true,
  createdAt: EXAMPLE_TIME,
};
const CONFIG = {
  mode: 'THRESHOLD' as const,
  account: ACCOUNT,
  thresholdAmount: 100000,
  period: null,
  currency: 'XAF',
  environment: 'TEST' as const,
  lastTriggeredAt: null,
  updatedAt: EXAMPLE_TIME,
};
const environment = dashboardEnvironmentQuery;

const accountData = z.object({
  id: z.string(),
  providerCode: z.string(),
  providerName: z.string().nullable().describe('Nom du moyen de paiement (null s’il n’existe plus sous ce code)'),
  providerType: z.string().nullable().describe('MOBILE_MONEY, BANK_TRANSFER, CARD, CRYPTO ou WALLET'),
  accountNumber: z.string(),
  accountName: z.string(),
  isDefault: z.boolean(),
  createdAt: z.string(),
});
const configData = z
  .object({
    mode: z.enum(WITHDRAWAL_MODES),
    account: accountData.nullable(),
    thresholdAmount: z.number().nullable(),
    period: z.enum(WITHDRAWAL_PERIODS).nullable(),
    currency: z.string(),
    environment: z.enum(['LIVE', 'TEST']),
    lastTriggeredAt: z.string().nullable(),
    updatedAt: z.string(),
  })
  .nullable()
  .describe('null : aucun réglage (équivaut à MANUAL)');
const withdrawData = z.object({
  reference: z.string(),
  status: z.string(),
  amount: z.number(),
  feeAmount: z.number(),
  currency: z.string(),
  paymentMethod: z.string().nullable(),
  beneficiaryAccount: z.string().nullable(),
  beneficiaryName: z.string().nullable(),
});

function accountOut(a: WithdrawalAccountView) {
  return {
    id: a.id,
    providerCode: a.providerCode,
    providerName: a.providerName,
    providerType: a.providerType,
    accountNumber: a.accountNumber,
    accountName: a.accountName,
    isDefault: a.isDefault,
    createdAt: ts(a.createdAt),
  };
}

/** Registers /api/v1/merchants/withdrawals/…. */
export async function dashboardWithdrawalRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.addHook('onRequest', dashboardAuthHook(services));
  const tags = ['Dashboard : retraits'];
  const security = bearerSecurity;
  const now = () => services.clock.now();
  /** Accounts as answered, each with its rail's name and type. */
  const accountsOut = async (accounts: WithdrawalAccountRow[]) => (await withdrawalAccountViews(services.db, accounts)).map(accountOut);
  const configOut = async (c: WithdrawalConfigView | null) => {
    if (!c) return null;
    const account = c.account ? (await accountsOut([c.account]))[0]! : null;
    return { ...c, account, lastTriggeredAt: ts(c.lastTriggeredAt), updatedAt: ts(c.updatedAt) };
  };
  /** Withdrawals are a merchant's: staff accounts have none. */
  const merchantOf = (request: Parameters<typeof requireAccount>[0]) => {
    const account = requireAccount(request);
    requireRole(account, 'MERCHANT');
    return account.accountId;
  };

  r.get(
    '/api/v1/merchants/withdrawals/accounts',
    { schema: { tags, operationId: 'listWithdrawalAccounts', summary: 'Mes comptes de retrait', security, response: { 200: success(z.array(accountData), 'Mes comptes de retrait', { message: 'Comptes de retrait récupérés.', data: [ACCOUNT] }), ...errorResponses(...MERCHANT_ERRORS) } } },
    async (request) => ok(await accountsOut(await listWithdrawalAccounts(services.db, merchantOf(request))), 'Comptes de retrait récupérés.', now()),
  );

  r.post(
    '/api/v1/merchants/withdrawals/accounts',
    {
      schema: {
        tags,
        operationId: 'addWithdrawalAccount', summary: 'Ajouter un compte de retrait',
        security,
        body: z.object({
          providerCode: requiredText(64),
          accountNumber: requiredText(100),
          accountName: requiredText(255),
          isDefault: z.boolean().optional(),
        }).meta({ examples: [{ providerCode: 'MTN_MOMO_CM', accountNumber: '237677000001', accountName: 'Awa Ngono', isDefault: true }] }),
        response: { 201: success(accountData, 'Le compte ajouté', { message: 'Compte de retrait ajouté.', data: ACCOUNT }), ...errorResponses(...BODY_ERRORS, ...MERCHANT_ERRORS, 'PROVIDER_NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const created = await addWithdrawalAccount(request.services, merchantOf(request), request.body);
      return reply.code(201).send(ok((await accountsOut([created]))[0]!, 'Compte de retrait ajouté.', now()));
    },
  );

  r.delete(
    '/api/v1/merchants/withdrawals/accounts/:id',
    { schema: { tags, operationId: 'deleteWithdrawalAccount', summary: 'Supprimer un compte de retrait', security, params: idParams, response: { 204: noContent, ...errorResponses('INVALID_PARAMETER', ...MERCHANT_ERRORS, 'RESOURCE_NOT_FOUND') } } },
    async (request, reply) => {
      await deleteWithdrawalAccount(request.services, merchantOf(request), request.params.id);
      return reply.code(204).send(undefined);
    },
  );

  r.patch(
    '/api/v1/merchants/withdrawals/accounts/:id/default',
    { schema: { tags, operationId: 'setDefaultWithdrawalAccount', summary: 'Choisir le compte de retrait par défaut', security, params: idParams, response: { 200: success(accountData, 'Le compte, devenu celui par défaut', { message: 'Compte par défaut modifié.', data: ACCOUNT }), ...errorResponses('INVALID_PARAMETER', ...MERCHANT_ERRORS, 'RESOURCE_NOT_FOUND') } } },
    async (request) => {
      const updated = await setDefaultWithdrawalAccount(request.services, merchantOf(request), request.params.id);
      return ok((await accountsOut([updated]))[0]!, 'Compte par défaut modifié.', now());
    },
  );

  r.get(
    '/api/v1/merchants/withdrawals/config',
    {
      schema: {
        tags,
        operationId: 'getWithdrawalConfig', summary: 'Réglage des retraits automatiques',
        security,
        querystring: z.object({ currency: currencySchema.optional() }),
        response: { 200: success(configData, 'Le réglage (null : aucun, soit MANUAL)', { message: 'Réglage des retraits récupéré.', data: CONFIG }), ...errorResponses('INVALID_PARAMETER', ...MERCHANT_ERRORS) },
      },
    },
    async (request) => ok(await configOut(await getWithdrawalConfig(request.services, merchantOf(request), request.query.currency)), 'Réglage des retraits récupéré.', now()),
  );

  r.put(
    '/api/v1/merchants/withdrawals/config',
    {
      schema: {
        tags,
        operationId: 'putWithdrawalConfig', summary: 'Régler les retraits automatiques (MANUAL, INSTANT, THRESHOLD, PERIODIC)',
        security,
        body: z.object({
          mode: z.enum(WITHDRAWAL_MODES),
          accountId: uuidParam.optional(),
          thresholdAmount: amountSchema.max(1_000_000_000_000).optional(),
          period: z.enum(WITHDRAWAL_PERIODS).optional(),
          currency: currencySchema.optional(),
          environment,
        }).meta({ examples: [{ mode: 'THRESHOLD', accountId: EXAMPLE_IDS.withdrawalAccount, thresholdAmount: 100000, currency: 'XAF', environment: 'TEST' }] }),
        response: { 200: success(configData, 'Le réglage enregistré', { message: 'Réglage des retraits enregistré.', data: CONFIG }), ...errorResponses(...BODY_ERRORS, ...MERCHANT_ERRORS, 'RESOURCE_NOT_FOUND') },
      },
    },
    async (request) => {
      const merchantId = merchantOf(request);
      const environment = await dashboardEnvironment(services.db, merchantId, request.body.environment);
      return ok(await configOut(await putWithdrawalConfig(request.services, merchantId, { ...request.body, environment })), 'Réglage des retraits enregistré.', now());
    },
  );

  r.post(
    '/api/v1/merchants/withdrawals/withdraw',
    {
      schema: {
        tags,
        operationId: 'withdraw', summary: 'Retirer vers mon compte (un virement financé par le solde disponible)',
        security,
        body: z.object({
          amount: amountSchema,
          currency: currencySchema,
          paymentMethod: requiredText(100),
          beneficiaryAccount: requiredText(100),
          beneficiaryName: requiredText(255),
          description: optionalText(255),
          merchantReference: optionalText(255),
          applicationId: z.string().uuid().optional().describe("L'application dont le solde est débité (obligatoire si plusieurs dans cette devise)"),
          environment,
        }).meta({ examples: [{ amount: 50000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa Ngono', description: 'Retrait de novembre', environment: 'TEST' }] }),
        response: { 201: success(withdrawData, 'Le retrait initié (un virement PENDING)', { message: 'Retrait initié.', data: { reference: EXAMPLE_IDS.payOut, status: 'PENDING', amount: 50000, feeAmount: 0, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'Awa Ngono' } }), ...errorResponses(...BODY_ERRORS, ...MERCHANT_ERRORS, 'APP_NOT_FOUND', 'PROVIDER_NOT_FOUND', 'CURRENCY_MISMATCH', 'AMOUNT_BELOW_MINIMUM', 'AMOUNT_ABOVE_MAXIMUM', 'INSUFFICIENT_BALANCE') },
      },
    },
    async (request, reply) => {
      const merchantId = merchantOf(request);
      const environment = await dashboardEnvironment(services.db, merchantId, request.body.environment);
      const data = await withdraw(request.services, merchantId, { ...request.body, environment });
      return reply.code(201).send(ok(data, 'Retrait initié.', now()));
    },
  );
}
