/**
 * How Kolo serves the dashboard: `/` redirects to `/app/`, every `/app` path answers the app's
 * page under a CSP without inline scripts, assets are sent compressed and cached for good, an
 * unknown asset is a 404, and an unbuilt app answers 503 with the command that builds it.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webAppRoutes } from '../../src/http/web-app.ts';
import { startHarness, type Harness } from '../harness.ts';
import { ensureWebBuild } from './web-build.ts';

let h: Harness;
let dist: string;

beforeAll(async () => {
  dist = await ensureWebBuild();
  h = await startHarness();
}, 120_000);
afterAll(async () => h?.close());

it('redirects / to /app/', async () => {
  const response = await h.request('GET', '/');
  expect(response.status).toBe(302);
  expect(response.headers.get('location')).toBe('/app/');
});

it('answers the app page on every /app path, under a strict CSP, revalidated', async () => {
  for (const path of ['/app', '/app/', '/app/transactions/PI-0A1B2C3D4E5F', '/app/apps']) {
    const response = await h.request('GET', path);
    expect(response.status, path).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
  }
  const html = (await h.request('GET', '/app/')).text;
  // Every script is a file of ours; none is inline, none from another host.
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toMatch(/ src="\/app\/assets\/[^"]+\.js"/);
  expect(html).not.toMatch(/https?:\/\//);
});

it('sends assets compressed and immutable; an unknown asset is a 404', async () => {
  const manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, 'utf8')) as Record<string, { file: string; isEntry?: boolean }>;
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry)!.file;
  const response = await fetch(`${h.baseUrl}/app/${entry}`, { headers: { 'accept-encoding': 'br' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-encoding')).toBe('br');
  expect(response.headers.get('cache-control')).toContain('immutable');
  await response.arrayBuffer();
  expect((await h.request('GET', '/app/assets/missing-0000.js')).status).toBe(404);
});

it('answers 503 with the build command when the app was not built', async () => {
  const app = Fastify();
  await app.register(async (scope) => webAppRoutes(scope, '/nonexistent/'));
  const response = await app.inject({ method: 'GET', url: '/app/' });
  expect(response.statusCode).toBe(503);
  expect(response.body).toContain('npm run build');
  await app.close();
});
