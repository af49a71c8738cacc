/**
 * `kolo transactions list` and `kolo transactions show`: a merchant's or an application's
 * transactions, newest first, and one transaction by reference or id with its status history —
 * the rows and views of the dashboard (dashboard/transactions.ts), so the CLI and the dashboard
 * show the same thing. Amounts are integers in the currency's base unit.
 */
import { eq } from 'drizzle-orm';
import { findMerchant } from '../../accounts/merchants.ts';
import { findApplication } from '../../accounts/applications.ts';
import { pageTransactions, transactionDetail, type DashboardTransaction } from '../../dashboard/transactions.ts';
import { applications, transactions } from '../../db/schema.ts';
import { isUuid } from '../../domain/ids.ts';
import { CommandError, UsageError, type CliContext } from '../context.ts';
import { withRuntime } from '../database.ts';
import { fields, print, shortDate, table } from '../output.ts';

/** Options of `transactions list`: `app` or `merchant` says whose. */
export interface TransactionsListOptions {
  json?: boolean | undefined;
  app?: string | undefined;
  merchant?: string | undefined;
  status?: string | undefined;
  environment?: 'TEST' | 'LIVE' | undefined;
  limit: number;
}

const COLUMNS = [
  { head: 'REFERENCE', cell: (t: DashboardTransaction) => t.reference },
  { head: 'TYPE', cell: (t: DashboardTransaction) => t.type },
  { head: 'ENV', cell: (t: DashboardTransaction) => t.environment },
  { head: 'AMOUNT', cell: (t: DashboardTransaction) => `${t.amount} ${t.currency}` },
  { head: 'STATUS', cell: (t: DashboardTransaction) => t.status },
  { head: 'PROVIDER', cell: (t: DashboardTransaction) => t.provider },
  { head: 'APPLICATION', cell: (t: DashboardTransaction) => t.appName },
  { head: 'CREATED', cell: (t: DashboardTransaction) => shortDate(t.createdAt) },
];

/** `kolo transactions list (--app ID | --merchant ID|EMAIL) [--status S] [--environment E] [--limit N]`. */
export async function transactionsList(ctx: CliContext, opts: TransactionsListOptions): Promise<void> {
  if (!opts.app === !opts.merchant) throw new UsageError('give either --app or --merchant (whose transactions to list)');
  await withRuntime(ctx, 'kolo transactions list', async ({ services }) => {
    let merchantId: string;
    if (opts.app) {
      const app = await findApplication(services.db, opts.app);
      if (!app) throw new CommandError(`no application ${opts.app}`);
      merchantId = app.merchantId;
    } else {
      const merchant = await findMerchant(services.db, opts.merchant!);
      if (!merchant) throw new CommandError(`no merchant ${opts.merchant}`);
      merchantId = merchant.id;
    }
    const filter = { applicationId: opts.app, status: opts.status, environment: opts.environment };
    const { rows, total } = await pageTransactions(services.db, merchantId, filter, 0, opts.limit);
    const human = table(rows, COLUMNS, 'no transaction');
    print(ctx.io, opts.json, rows.length < total ? `${human}\n(${rows.length} of ${total}: --limit for more)` : human, { transactions: rows, total });
  });
}

/** `kolo transactions show <reference|id>`: the transaction and its history (with each event's diagnostic detail). */
export async function transactionsShow(ctx: CliContext, idOrReference: string, opts: { json?: boolean | undefined }): Promise<void> {
  await withRuntime(ctx, 'kolo transactions show', async ({ services }) => {
    const [owner] = await services.db
      .select({ merchantId: applications.merchantId })
      .from(transactions)
      .innerJoin(applications, eq(applications.id, transactions.applicationId))
      .where(isUuid(idOrReference) ? eq(transactions.id, idOrReference) : eq(transactions.reference, idOrReference))
      .limit(1);
    if (!owner) throw new CommandError(`no transaction ${idOrReference}`);
    const t = await transactionDetail(services.db, owner.merchantId, idOrReference, { withDetail: true });
    const human = [
      fields([
        ['reference', t.reference],
        ['id', t.id],
        ['merchant reference', t.merchantReference],
        ['type', `${t.type} (${t.direction})`],
        ['environment', t.environment],
        ['amount', `${t.amount} ${t.currency}`],
        ['fee', t.feeAmount === null ? null : `${t.feeAmount} ${t.currency}`],
        ['status', t.status],
        ['failure', t.failureCode ? `${t.failureCode}${t.failureReason ? `: ${t.failureReason}` : ''}` : null],
        ['provider', t.provider],
        ['account', t.payerAccount],
        ['operator transaction id', t.operatorTransactionId],
        ['application', `${t.appName} (${t.applicationId})`],
        ['created', shortDate(t.createdAt)],
        ['completed', shortDate(t.completedAt)],
      ]),
      '',
      table(
        t.events,
        [
          { head: 'TIME', cell: (e) => shortDate(e.createdAt) },
          { head: 'FROM', cell: (e) => e.fromStatus },
          { head: 'TO', cell: (e) => e.toStatus },
          { head: 'CAUSE', cell: (e) => e.cause },
          { head: 'FAILURE', cell: (e) => e.failureCode },
        ],
        'no event',
      ),
    ].join('\n');
    print(ctx.io, opts.json, human, t);
  });
}
