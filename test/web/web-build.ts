/**
 * The web tests' access to web/dist: built by `npm run build`, or once before the run by the
 * globalSetup (test/web/global-setup.ts) when it is missing.
 */
import { existsSync } from 'node:fs';
import { WEB_DIST } from '../../src/http/web-app.ts';

/** web/dist's folder; throws when it has not been built. */
export async function ensureWebBuild(): Promise<string> {
  if (!existsSync(`${WEB_DIST}index.html`)) throw new Error('web/dist is missing: run `npm run build`');
  return WEB_DIST;
}
