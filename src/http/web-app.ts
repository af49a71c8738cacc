/**
 * The dashboard web app (web/, built by `npm run build` into web/dist): its files under
 * `/app/`, its `index.html` for every other `/app` path (the app routes in the browser), and
 * `/` redirected to `/app/`. A strict CSP: the app's own scripts and styles only, no inline
 * script, API calls to this origin only, no framing (docs/architecture.md "The web app").
 * Hashed assets are cached for a year; `index.html` is revalidated on every load. When the
 * app was not built, `/app` answers 503 with the command that builds it.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

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

/** Registers `/`, `/app` and `/app/*` in `app` (an encapsulated scope); `root` defaults to web/dist. */
export async function webAppRoutes(app: FastifyInstance, root: string = WEB_DIST): Promise<void> {
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/app/', 302));
  if (!existsSync(`${root}index.html`)) {
    app.get('/app/*', { schema: { hide: true } }, (_request, reply) =>
      reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm run build`.\n'),
    );
    return;
  }
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: WEB_APP_CSP },
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
  app.get('/app', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
  app.get('/app/*', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
}
