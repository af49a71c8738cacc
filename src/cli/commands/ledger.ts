/**
 * `kolo ledger verify` (exit 1 and the first discrepancies when an invariant is broken; a
 * progress line per check on stderr) and `kolo ledger fund` (tops up an application's TEST
 * available balance, in the application's currency's base unit).
 */
import { findApplication } from '../../accounts/applications.ts';
import { verifyLedger } from '../../ledger/verify-ledger.ts';
import { fundSandbox } from '../../payments/index.ts';
import { CommandError, type CliContext } from '../context.ts';
import { withRuntime } from '../database.ts';
import { print, progress } from '../output.ts';

/** `kolo ledger verify`. */
export async function ledgerVerify(ctx: CliContext, opts: { json?: boolean | undefined; progress: boolean }): Promise<void> {
  await withRuntime(ctx, 'kolo ledger verify', async ({ services }) => {
    const line = progress(ctx.io, 'ledger verify', opts.progress);
    const report = await verifyLedger(services.db, 10, (step, of, what) => line.update(`check ${step}/${of}: ${what}`));
    line.done();
    const summary = `${report.accounts} accounts, ${report.entries} entries, ${report.lines} lines`;
    if (report.ok) {
      print(ctx.io, opts.json, `ledger OK: ${summary}`, report);
    } else {
      print(ctx.io, opts.json, `ledger BROKEN: ${summary}\n${report.discrepancies.map((d) => `  ${d.check}: ${d.detail}`).join('\n')}`, report);
      ctx.result = { exitCode: 1 };
    }
  });
}

/** `kolo ledger fund --app ID --amount N`. */
export async function ledgerFund(ctx: CliContext, opts: { json?: boolean | undefined; app: string; amount: number }): Promise<void> {
  await withRuntime(ctx, 'kolo ledger fund', async ({ services }) => {
    const app = await findApplication(services.db, opts.app);
    if (!app) throw new CommandError(`no application ${opts.app}`);
    await fundSandbox(services, app.id, 'TEST', app.currency, opts.amount);
    print(ctx.io, opts.json, `TEST balance of application ${app.id} funded with ${opts.amount} ${app.currency}`, {
      applicationId: app.id,
      environment: 'TEST',
      currency: app.currency,
      amount: opts.amount,
    });
  });
}
