/**
 * Composition root and the only module that touches `process`: runs the `kolo` command with
 * the process's arguments and environment, and owns the signals of a running server.
 */
import { runCli } from './cli/run.ts';

const result = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});

if ('exitCode' in result) {
  process.exitCode = result.exitCode;
} else {
  const { server } = result;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'stopping');
    // Bounded: whatever is still running after SHUTDOWN_TIMEOUT_MS is cut off (leases, retries
    // and the poller make every interrupted piece of work safe to pick up again).
    const force = setTimeout(() => {
      server.app.log.error({ timeoutMs: server.shutdownTimeoutMs }, 'graceful stop timed out; exiting');
      process.exit(1);
    }, server.shutdownTimeoutMs);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
