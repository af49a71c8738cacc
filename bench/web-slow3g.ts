/**
 * `node --import tsx bench/web-slow3g.ts` (after `npm run build`): how long the dashboard's home
 * screen takes to become usable on Chromium's "Slow 3G" profile (DevTools' preset: 2 000 ms of
 * latency, 50 000 bytes/s each way), cache disabled, as a first visit after logging in: the
 * session comes from the refresh cookie. Usable: the home heading, the balances and the latest
 * transactions are shown (from the server-drawn page or the app, whichever comes first). Target:
 * under 5 s, i.e. about two sequential round trips at most.
 *
 * Kolo runs as `npm start` runs it (dist/main.js serve) on a fresh embedded database; the demo
 * merchant logs in with the password of the first start's banner.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const PORT = Number(process.env.BENCH_WEB_PORT ?? 18_091);
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 3);
const TARGET_MS = 5_000;
const SLOW_3G = { offline: false, latency: 2_000, downloadThroughput: 50_000, uploadThroughput: 50_000 };

const dataDir = mkdtempSync(join(tmpdir(), 'kolo-web-bench-'));
const server = spawn(process.execPath, ['dist/main.js', 'serve'], {
  env: { ...process.env, PORT: String(PORT), DATA_DIR: join(dataDir, 'data'), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let banner = '';
server.stdout.on('data', (chunk: Buffer) => (banner += chunk.toString()));
const base = `http://127.0.0.1:${PORT}`;

try {
  // The banner comes once the server listens (bounded wait: 120 s).
  for (let i = 0; i < 240 && !/mot de passe : [0-9a-f]+/.test(banner); i++) await new Promise((r) => setTimeout(r, 500));
  const password = /mot de passe : ([0-9a-f]+)/.exec(banner)?.[1];
  if (!password) throw new Error('no demo password in the banner');

  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'fr-FR' });
    const page = await context.newPage();
    await page.goto(`${base}/app/`);
    await page.getByLabel('Adresse e-mail').fill('demo@kolo.local');
    await page.getByLabel('Mot de passe').fill(password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.getByRole('heading', { name: 'Accueil' }).waitFor();
    // Now a first visit on Slow 3G: no cache, the session from the refresh cookie.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', SLOW_3G);
    const started = Date.now();
    await page.goto(`${base}/app/`, { waitUntil: 'commit', timeout: 60_000 });
    await page.getByRole('heading', { name: 'Accueil' }).waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Soldes' }).waitFor({ timeout: 60_000 });
    await page.getByText(/Aucun solde pour cet environnement\.|Disponible/).first().waitFor({ timeout: 60_000 });
    await page.getByText(/Aucune transaction pour le moment\.|PI-/).first().waitFor({ timeout: 60_000 });
    timings.push(Date.now() - started);
    await context.close();
  }
  await browser.close();
  const sorted = [...timings].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`home usable on Slow 3G (ms): ${timings.join(', ')}; median ${median} (target < ${TARGET_MS})`);
  process.exitCode = median < TARGET_MS ? 0 : 1;
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
