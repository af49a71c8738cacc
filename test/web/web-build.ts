/**
 * The web tests' access to web/dist: built by `npm run build` (CI's `npm test` follows
 * `npm ci`, so the first web test file builds it once when it is missing).
 */
import { existsSync } from 'node:fs';
import { WEB_DIST } from '../../src/http/web-app.ts';

let building: Promise<void> | null = null;

/** Builds web/dist with Vite unless its index.html exists; returns its folder. */
export async function ensureWebBuild(): Promise<string> {
  if (!existsSync(`${WEB_DIST}index.html`)) {
    building ??= import('vite').then(({ build }) => build({ configFile: 'web/vite.config.ts', logLevel: 'warn' })).then(() => undefined);
    await building;
  }
  return WEB_DIST;
}
