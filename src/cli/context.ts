/**
 * What every `kolo` command receives: the environment, where to write, and the slot for its
 * result; plus the errors a command throws to end with a message (usage: exit 2; failure: exit 1).
 * Light on purpose: loaded on every call, `--help` included.
 */
import type { RunningServer } from '../server.ts';

/** Where the CLI writes. `isErrTty`: stderr is a terminal (progress redraws one line; otherwise plain lines). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  isErrTty?: boolean;
}

/** A long-running command other than `serve` (a simulator, `listen`): the caller stops it on a signal. */
export interface RunningService {
  stop(): Promise<void>;
  /** Settles with an exit code if the service ends by itself (`listen` refused by the server). */
  finished?: Promise<number>;
}

/** A finished command's exit code, or a `serve` / `simulate` / `listen` that keeps running until stopped. */
export type CliResult = { exitCode: number } | { server: RunningServer } | { service: RunningService };

/** A command's view of the call: configuration source, output, and where its result goes. */
export interface CliContext {
  env: Record<string, string | undefined>;
  io: CliIo;
  result: CliResult;
}

/** A wrong or missing argument found by a command itself (beyond its parsers): exit 2 with the message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran and failed for a reason stated in the message: exit 1 with the message. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}
