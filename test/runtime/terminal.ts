/**
 * `kolo serve` with a pseudo-terminal as its stdout, as a developer runs it: under util-linux
 * `script`, in a process group of its own.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireCommand } from './nginx-proxy.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'kolo.js');
const COLOURS = /\x1b\[[0-9;]*m/g;

/** Runs `kolo serve` on a pseudo-terminal until `pattern` shows in its output; returns that output, colours removed. */
export async function serveAtTerminal(env: NodeJS.ProcessEnv, pattern: RegExp): Promise<string> {
  requireCommand('script', ['--version'], 'install util-linux (`apt-get install -y bsdutils`)');
  // detached: `script` and the server in a process group of their own, stopped together.
  const child = spawn('script', ['-q', '-e', '-f', '-c', `${process.execPath} ${BIN} serve`, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = Date.now() + 90_000;
    while (!pattern.test(output.replace(COLOURS, ''))) {
      if (child.exitCode !== null) throw new Error(`kolo serve exited (${child.exitCode}) at the terminal\n${output}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return output.replace(COLOURS, '').replaceAll('\r', '');
  } finally {
    if (child.exitCode === null) {
      process.kill(-child.pid!, 'SIGTERM');
      const killer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      await exit;
      clearTimeout(killer);
    }
  }
}
