/**
 * Composition root and the only module that touches `process`: runs the `kolo` command with
 * the process's arguments and environment, and owns the signals of a running server or service.
 */
import { runCli } from './cli/run.ts';

const result = await runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  isErrTty: process.stderr.isTTY === true,
});

if ('exitCode' in result) {
  process.exitCode = result.exitCode;
} else {
  const running = 'server' in result ? result.server : result.service;
  const log = 'server' in result ? result.server.app.log : null;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log?.info({ signal }, 'stopping');
    // Bounded: whatever is still running after the shutdown timeout is cut off (leases, retries
    // and the poller make every interrupted piece of work safe to pick up again).
    const timeoutMs = 'server' in result ? result.server.shutdownTimeoutMs : 15_000;
    const force = setTimeout(() => {
      log?.error({ timeoutMs }, 'graceful stop timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    force.unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        if (log) log.error({ err: error }, 'error while stopping');
        else process.stderr.write(`error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  if ('service' in result) {
    void result.service.finished?.then((code) => {
      if (!stopping) process.exit(code);
    });
  }
}
