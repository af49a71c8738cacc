/**
 * `npm run build` (and `prestart`): compiles src/ to dist/ with the TypeScript compiler
 * (tsconfig.build.json; incremental, so a rebuild with nothing changed takes a second or two)
 * and copies beside the compiled modules what they read at run time relative to themselves:
 * the SQL migrations, the page templates and the pages' static assets. Then builds the dashboard
 * web app (web/, Vite, web/vite.config.ts) into web/dist, served at /app (src/http/web-app.ts),
 * and its server renderer into web/dist/server.
 * The server runs this compiled JavaScript, with no TypeScript loader at run time.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
for (const dir of ['db/migrations', 'checkout/views', 'checkout/assets']) {
  cpSync(`${root}src/${dir}`, `${root}dist/${dir}`, { recursive: true });
}
// When dist/ was last made whole: bin/kolo.js runs dist/ only while no source is newer than this.
writeFileSync(`${root}dist/.built-at`, `${new Date().toISOString()}\n`);

const { build } = await import('vite');
await build({ configFile: `${root}web/vite.config.ts`, logLevel: 'warn' });
// Then its server renderer, into web/dist/server (after: the first build empties web/dist).
await build({ configFile: `${root}web/vite.config.ts`, logLevel: 'warn', build: { ssr: 'src/entry-server.tsx' } });
