/**
 * The dashboard's build: React through Vite, served by Kolo under /app/ (src/http/web-app.ts).
 * The manifest lists each route's chunks for test/web/bundle-size.test.ts. Each script, style
 * sheet and icon also gets a gzip and a brotli twin, which the server sends to browsers that
 * accept them (compressed once here, never per request).
 *
 * A second build (`build: { ssr: 'src/entry-server.tsx' }`, run after the first by scripts/build.mjs and the web tests' global
 * setup) bundles web/src/entry-server.tsx with its libraries into web/dist/server/, the renderer
 * Kolo uses to send the signed-in home screen already drawn (src/http/web-app.ts).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/** Writes `x.gz` and `x.br` beside each asset once the bundle is written. */
function compressedTwins(): Plugin {
  return {
    name: 'kolo-compressed-twins',
    // The browser's bundle only: the server renderer's (SSR_BUILD) is read from disk by Kolo.
    apply: (_config, env) => env.command === 'build' && !env.isSsrBuild,
    writeBundle(options) {
      const assets = `${options.dir}/assets`;
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const bytes = readFileSync(`${assets}/${name}`);
        writeFileSync(`${assets}/${name}.gz`, gzipSync(bytes, { level: 9 }));
        writeFileSync(`${assets}/${name}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

export default defineConfig(({ isSsrBuild, mode }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  plugins: [react(), compressedTwins()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // No inline data: URLs in scripts or styles (the CSP's img-src allows data:, but fonts do not).
    assetsInlineLimit: 0,
    // The compression plugin is slow by design (brotli's best level, once per build): no report of it.
    rolldownOptions: { checks: { bundlerTimings: false } },
    ...(isSsrBuild ? { outDir: 'dist/server', emptyOutDir: false, manifest: false } : {}),
  },
  // The renderer is self-contained: React and the app's libraries are development dependencies;
  // their production builds are chosen here, not by Kolo's NODE_ENV at run time.
  ssr: { noExternal: true, target: 'node' },
  ...(isSsrBuild ? { define: { 'process.env.NODE_ENV': JSON.stringify(mode === 'development' ? 'development' : 'production') } } : {}),
}));
