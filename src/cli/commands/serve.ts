/**
 * `kolo serve`: checks the shared secrets, seeds the demo data of an empty database, creates the
 * configured first ADMIN, and starts the server. With an embedded database on disk the server
 * holds the data directory's lock until it stops, so no other `kolo` process opens it meanwhile.
 */
import { openRuntime } from '../../bootstrap.ts';
import { demoBanner, seedDemo } from '../../accounts/demo-seed.ts';
import { ensureConfiguredAdmin } from '../../dashboard/first-admin.ts';
import { startServer } from '../../server.ts';
import { checkSharedSecrets, SharedSecretMismatchError } from '../../shared-secrets.ts';
import { callbackBaseUrlWarning } from '../../connectors/live-connectors.ts';
import { CommandError, type CliContext } from '../context.ts';
import { configOf, lockDataDir } from '../database.ts';
import { DataDirBusyError } from '../../db/data-dir-lock.ts';

/** Starts the server; `ctx.result` becomes `{ server }` (stopped by the caller on a signal), or an exit code. */
export async function serve(ctx: CliContext): Promise<void> {
  const config = configOf(ctx);
  let lock;
  try {
    lock = lockDataDir(config, 'kolo serve');
  } catch (error) {
    if (error instanceof DataDirBusyError) throw new CommandError(`refusing to start: ${error.message}`);
    throw error;
  }
  try {
    const runtime = await openRuntime(config);
    try {
      await checkSharedSecrets(runtime.services, runtime.database);
    } catch (error) {
      if (!(error instanceof SharedSecretMismatchError)) throw error;
      runtime.services.log.fatal({ err: error }, 'refusing to start: shared secrets differ');
      await runtime.close();
      throw new CommandError(`refusing to start: ${error.message}`);
    }
    const seed = config.demoSeed ? await seedDemo(runtime.services) : null;
    const admin = await ensureConfiguredAdmin(runtime.services);
    if (admin) runtime.services.log.info({ email: admin }, 'first ADMIN created from ADMIN_EMAIL');
    const callbackWarning = callbackBaseUrlWarning(config);
    if (callbackWarning) runtime.services.log.warn({ callbackBaseUrl: config.callbackBaseUrl }, callbackWarning);
    const server = await startServer(runtime);
    if (seed) ctx.io.out(demoBanner(seed, config.publicBaseUrl));
    runtime.services.log.info({ url: server.url, database: runtime.database.kind }, 'Kolo is listening');
    const held = lock;
    ctx.result = {
      server: {
        ...server,
        async stop() {
          try {
            await server.stop();
          } finally {
            held?.release();
          }
        },
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}
