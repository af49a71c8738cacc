/**
 * vitest globalSetup: builds the web app and its server renderer once, before any test file
 * runs, when web/dist has no index.html or no server/entry-server.js (a fresh `npm ci && npm test`), so test files running in parallel never build it
 * at the same time. `npm run build` (and `npm start`) build it too.
 */
import { existsSync } from 'node:fs';
import { WEB_DIST } from '../../src/http/web-app.ts';

/** vitest's globalSetup entry (a named export, which vitest accepts besides a default one). */
export async function setup(): Promise<void> {
  if (existsSync(`${WEB_DIST}index.html`) && existsSync(`${WEB_DIST}server/entry-server.js`)) return;
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
