/**
 * The dashboard's build: React through Vite, served by Kolo under /app/ (src/http/web-app.ts).
 * The manifest lists each route's chunks for test/web/bundle-size.test.ts.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  publicDir: false,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    // No inline data: URLs in scripts or styles (the CSP's img-src allows data:, but fonts do not).
    assetsInlineLimit: 0,
  },
});
