/**
 * vitest globalSetup: builds the web app and its server renderer once, before any test file
 * runs, when web/dist has no index.html or no server/entry-server.js (a fresh `npm ci && npm
 * test`) or when a source of the web app changed after them, so that test files running in
 * parallel never build it at the same time nor test a stale build. `npm run build` (and `npm
 * start`) build it too.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WEB_DIST } from '../../src/http/web-app.ts';

/** What the build reads: the app's sources, its page and its Vite configuration. */
const WEB_SOURCES = ['web/src', 'web/index.html', 'web/vite.config.ts'];

/** The newest modification time (ms) of `paths`, folders walked recursively. */
function newestChange(paths: string[]): number {
  let newest = 0;
  for (const path of paths) {
    const stat = statSync(path);
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) {
      const inside = readdirSync(path, { recursive: true, encoding: 'utf8' }).map((name) => join(path, name));
      for (const file of inside) newest = Math.max(newest, statSync(file).mtimeMs);
    }
  }
  return newest;
}

/** Whether web/dist holds a build at least as new as every source it is built from. */
function isBuildCurrent(): boolean {
  const outputs = [`${WEB_DIST}index.html`, `${WEB_DIST}server/entry-server.js`];
  if (!outputs.every((output) => existsSync(output))) return false;
  const built = Math.min(...outputs.map((output) => statSync(output).mtimeMs));
  return built >= newestChange(WEB_SOURCES);
}

/** vitest's globalSetup entry (a named export, which vitest accepts besides a default one). */
export async function setup(): Promise<void> {
  if (isBuildCurrent()) return;
  const { build } = await import('vite');
  // vitest runs with NODE_ENV=test, which Vite would keep: React's development build, larger and
  // slower than what `npm run build` serves. Built as production, like `npm run build`.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: 'web/vite.config.ts', logLevel: 'warn', mode: 'production' });
    await build({ configFile: 'web/vite.config.ts', logLevel: 'warn', mode: 'production', build: { ssr: 'src/entry-server.tsx' } });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
