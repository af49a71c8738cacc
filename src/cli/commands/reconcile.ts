/**
 * `kolo reconcile --rail CODE --from ISO --to ISO [--file CSV]`: one reconciliation run of a LIVE
 * rail (reconciliation/): prints the counts, the cases opened by kind and the rail's drift (Σ of
 * its open cases, base units). Exit 1 when the operator's records cannot be had or the file is
 * unreadable (nothing is opened then).
 */
import { readFile } from 'node:fs/promises';
import { runReconciliation } from '../../reconciliation/index.ts';
import { CommandError, type CliContext } from '../context.ts';
import { withRuntime } from '../database.ts';
import { print } from '../output.ts';

/** At most this many bytes of statement file. */
const FILE_BYTES_MAX = 50 * 1024 * 1024;

/** `kolo reconcile`. */
export async function reconcile(ctx: CliContext, opts: { rail: string; from: Date; to: Date; file?: string | undefined; json?: boolean | undefined }): Promise<void> {
  let file: string | undefined;
  if (opts.file !== undefined) {
    const bytes = await readFile(opts.file).catch((e: Error) => {
      throw new CommandError(`cannot read ${opts.file}: ${e.message}`);
    });
    if (bytes.length > FILE_BYTES_MAX) throw new CommandError(`${opts.file} is larger than ${FILE_BYTES_MAX} bytes`);
    file = bytes.toString('utf8');
  }
  await withRuntime(ctx, 'kolo reconcile', async ({ services }) => {
    const run = await runReconciliation(services, { railCode: opts.rail, from: opts.from, to: opts.to, ...(file !== undefined ? { file } : {}) });
    const kinds = Object.entries(run.openedByKind).map(([kind, n]) => `  ${kind}: ${n}`);
    print(
      ctx.io,
      opts.json,
      [
        `reconciliation ${run.id} of ${run.railCode} from ${run.from.toISOString()} to ${run.to.toISOString()} (${run.source})`,
        `  operator records: ${run.operatorRecords}, Kolo transactions: ${run.koloTransactions}, matched: ${run.matched}`,
        `  cases opened: ${run.casesOpened}${kinds.length > 0 ? `\n${kinds.join('\n')}` : ''}`,
        `  drift (open cases): ${run.drift}${run.currency ? ` ${run.currency}` : ''}`,
      ].join('\n'),
      run,
    );
  });
}
