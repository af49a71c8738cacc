/**
 * The dashboard web app (web/, built by `npm run build` into web/dist): its files under
 * `/app/`, its `index.html` for every other `/app` path (the app routes in the browser), and
 * `/` redirected to `/app/`. A strict CSP: the app's own scripts and styles only (plus the
 * app's one style sheet inlined, by its hash), no inline script, API calls to this origin only,
 * no framing (docs/web-app.md). Hashed assets are cached for a year;
 * `index.html` is revalidated on every load. When the app was not built, `/app` answers 503
 * with the command that builds it.
 *
 * The home page (`/app`, `/app/`) with a live refresh cookie: Kolo renews the session as
 * `POST /api/v1/auth/refresh-token` does (same rotation, same refusals, the cookie renewed) and
 * answers the page with the session in a JSON block (web/src/bootstrap.ts) and, for a merchant,
 * the home screen already drawn by the app's server renderer (web/dist/server), its style sheet
 * inline: one round trip to a usable screen. Such a page is `no-store`. Without a cookie, or
 * with one the refresh refuses (unknown, reused, expired, revoked, account not active), it is
 * the plain `index.html`, whose app shows the login.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { refreshSession } from '../dashboard/tokens.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { REFRESH_COOKIE, setRefreshCookie } from './routes/dashboard-auth.ts';

/** web/dist, from src/http/ as from dist/http/ (both two levels below the project's root). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** The app's Content-Security-Policy directives. */
export const WEB_APP_CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  manifestSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
};

/** The web app's copy of the signed-in account's display choices (web/src/prefs.ts). */
const PREFS_COOKIE = 'kolo_prefs';
const prefsCookie = z.object({
  accountId: z.string(),
  language: z.enum(['fr', 'en']),
  environment: z.enum(['TEST', 'LIVE']),
  timeZone: z.string().min(1).max(64),
});
type Language = z.infer<typeof prefsCookie>['language'];
type Environment = z.infer<typeof prefsCookie>['environment'];

/** The account as the app holds it (web/src/auth/session.tsx `User`). */
interface PageUser {
  accountId: string;
  email: string;
  fullName: string;
  role: string;
  /** The profile's language; null until the account chooses one. */
  language: Language | null;
}

/** web/src/entry-server.tsx, as built. */
interface ServerRenderer {
  renderHome(input: {
    fetch: (request: Request) => Promise<Response>;
    user: PageUser;
    language: Language;
    environment: Environment;
    /** The reader's IANA time zone (dates are shown in it). */
    timeZone: string;
    /** The server's IANA time zone (the API's zone-less timestamps are read in it). */
    serverTimeZone: string;
  }): Promise<{ html: string; queries: unknown }>;
}

/** The first of French and English in an Accept-Language header, in its order (French by default), as the app picks. */
function headerLanguage(header: string | undefined): Language {
  for (const tag of (header ?? '').split(',')) {
    const base = tag.trim().slice(0, 2).toLowerCase();
    if (base === 'fr' || base === 'en') return base;
  }
  return 'fr';
}

/**
 * `<link>` hints for the home screen's chunk, the chunks it imports and its style sheets, all
 * but those `index` already names (from the build's manifest; '' without one): a drawn page is
 * hydrated once they are there, fetched beside the entry instead of after it.
 */
function homeScreenHints(root: string, index: string): string {
  const file = `${root}.vite/manifest.json`;
  if (!existsSync(file)) return '';
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { file: string; imports?: string[]; css?: string[] }>;
  const scripts = new Set<string>();
  const sheets = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || scripts.has(chunk.file)) return;
    scripts.add(chunk.file);
    for (const css of chunk.css ?? []) sheets.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit('src/screens/home/Home.tsx');
  const fresh = (name: string) => !index.includes(`/app/${name}"`);
  return [
    ...[...scripts].filter(fresh).map((name) => `<link rel="modulepreload" crossorigin href="/app/${name}">`),
    ...[...sheets].filter(fresh).map((name) => `<link rel="preload" as="style" crossorigin href="/app/${name}">`),
  ].join('');
}

/** JSON for a `<script type="application/json">` block: no `<` left to close it early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Registers `/`, `/app` and `/app/*` in `app` (an encapsulated scope); `root` defaults to
 * web/dist. With `services`, the home page renews a live session and is drawn (see above).
 */
export async function webAppRoutes(app: FastifyInstance, root: string = WEB_DIST, services?: Services): Promise<void> {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/app/', 302));
  if (!existsSync(`${root}index.html`)) {
    app.get('/app/*', { schema: { hide: true } }, (_request, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build`.\n'),
    );
    return;
  }
  const index = readFileSync(`${root}index.html`, 'utf8');
  // The entry's style sheet, to inline in a drawn page (no second round trip before the first paint).
  const sheetLink = /<link rel="stylesheet"[^>]* href="\/app\/assets\/([^"]+\.css)">/.exec(index);
  const sheet = sheetLink ? readFileSync(`${root}assets/${sheetLink[1]}`, 'utf8') : null;
  const sheetHash = sheet === null ? null : `'sha256-${createHash('sha256').update(sheet).digest('base64')}'`;
  const homeHints = homeScreenHints(root, index);
  const rendererFile = `${root}server/entry-server.js`;
  let renderer: Promise<ServerRenderer> | null = null;
  const loadRenderer = () => (renderer ??= import(pathToFileURL(rendererFile).href) as Promise<ServerRenderer>);

  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: sheetHash ? { ...WEB_APP_CSP, styleSrc: [...WEB_APP_CSP.styleSrc, sheetHash] } : WEB_APP_CSP,
    },
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(fastifyStatic, {
    root: `${root}assets`,
    prefix: '/app/assets/',
    // Served as built: each file's gzip and brotli twins (written by the build) when the browser accepts them.
    preCompressed: true,
    immutable: true,
    maxAge: '365d',
    index: false,
    schemaHide: true,
  });
  const sendIndex = (reply: FastifyReply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });
  if (!services) {
    app.get('/app', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
    app.get('/app/*', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
    return;
  }
  await app.register(fastifyCookie);

  /** The home page for the session of `refreshToken`, or null when the refresh refuses it. */
  const signedInPage = async (request: FastifyRequest, reply: FastifyReply, refreshToken: string): Promise<string | null> => {
    let pair;
    try {
      pair = await refreshSession(request.services, refreshToken);
    } catch (error) {
      // A refusal (ApiError) is the login page; anything else too, but worth a line in the log.
      if (!(error instanceof ApiError)) request.log.warn({ err: error }, 'home page: session not renewed');
      return null;
    }
    setRefreshCookie(services, reply, pair.refreshToken);
    // The app's own API calls, with the renewed access token, from the reader's address.
    const callApi = async (call: Request): Promise<Response> => {
      const url = new URL(call.url);
      if (call.method !== 'GET' || !url.pathname.startsWith('/api/v1/')) throw new Error(`not an API read: ${call.method} ${url.pathname}`);
      const answer = await app.inject({
        method: 'GET',
        url: url.pathname + url.search,
        headers: { authorization: `Bearer ${pair.accessToken}`, accept: 'application/json' },
        remoteAddress: request.ip,
      });
      return new Response(answer.body, { status: answer.statusCode, headers: { 'content-type': String(answer.headers['content-type'] ?? 'application/json') } });
    };
    const me = await callApi(new Request('http://kolo.local/api/v1/merchants/me'));
    if (!me.ok) return null;
    const profile = ((await me.json()) as { data: { id: string; email: string; fullName: string; role: string; language: Language | null; serverTimeZone: string } }).data;
    const user: PageUser = { accountId: profile.id, email: profile.email, fullName: profile.fullName, role: profile.role, language: profile.language };
    const raw = request.cookies[PREFS_COOKIE];
    let stored: z.infer<typeof prefsCookie> | null = null;
    try {
      const parsed = prefsCookie.safeParse(raw ? JSON.parse(raw) : null);
      stored = parsed.success && parsed.data.accountId === user.accountId ? parsed.data : null;
    } catch {
      stored = null;
    }
    // As the app picks: the account's language, else the page's (the cookie's), else the browser's.
    const language = user.language ?? stored?.language ?? headerLanguage(request.headers['accept-language']);
    const environment = stored?.environment ?? 'TEST';
    // Drawn for a merchant whose time zone the app told (dates are shown in it); else the app draws.
    let drawn: { html: string; queries: unknown } | null = null;
    if (stored && user.role === 'MERCHANT' && sheet !== null && existsSync(rendererFile)) {
      try {
        drawn = await (await loadRenderer()).renderHome({ fetch: callApi, user, language, environment, timeZone: stored.timeZone, serverTimeZone: profile.serverTimeZone });
      } catch (error) {
        request.log.warn({ err: error }, 'home page not drawn on the server');
      }
    }
    const bootstrap = {
      accessToken: pair.accessToken,
      user,
      language,
      environment,
      timeZone: stored?.timeZone ?? 'UTC',
      serverTimeZone: profile.serverTimeZone,
      rendered: drawn !== null,
      queries: drawn?.queries ?? null,
    };
    let page = index.replace('<html lang="fr">', `<html lang="${language}">`);
    if (drawn && sheetLink) page = page.replace(sheetLink[0], `<style>${sheet}</style>`).replace('</head>', `${homeHints}</head>`);
    return page.replace(
      '<div id="root"></div>',
      `<div id="root">${drawn?.html ?? ''}</div>\n    <script type="application/json" id="kolo-bootstrap">${scriptJson(bootstrap)}</script>`,
    );
  };

  const home = async (request: FastifyRequest, reply: FastifyReply) => {
    const refreshToken = request.cookies[REFRESH_COOKIE];
    const page = refreshToken ? await signedInPage(request, reply, refreshToken) : null;
    if (page === null) return sendIndex(reply);
    // A page with the account's data and its access token: never stored by any cache.
    reply.header('cache-control', 'no-store').header('vary', 'accept-encoding').type('text/html; charset=utf-8');
    const accepted = String(request.headers['accept-encoding'] ?? '');
    if (/\bbr\b/.test(accepted)) {
      return reply.header('content-encoding', 'br').send(brotliCompressSync(page, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }));
    }
    if (/\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(gzipSync(page));
    return reply.send(page);
  };
  app.get('/app', { schema: { hide: true } }, home);
  // `/app/*` covers `/app/` too (an empty rest): the home page; any other path is the plain page.
  app.get<{ Params: { '*': string } }>('/app/*', { schema: { hide: true } }, (request, reply) =>
    request.params['*'] === '' ? home(request, reply) : sendIndex(reply),
  );
}
