/**
 * The plugins every public page (the hosted checkout, fund collections) registers in its own
 * scope: cookies (the CSRF cookie), urlencoded forms (the no-JS path, bounded), helmet with a
 * strict CSP (own scripts and styles only, images from HTTPS hosts for logos and covers, no
 * framing) and `no-referrer` (page URLs carry tokens or slugs that must not leak to other
 * sites), and rate limiting configured per route.
 */
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** Registers the public-page plugins in `app` (an encapsulated scope); forms up to `formBodyLimitBytes`. */
export async function registerPublicPagePlugins(app: FastifyInstance, formBodyLimitBytes: number): Promise<void> {
  await app.register(fastifyCookie);
  await app.register(fastifyFormbody, { bodyLimit: formBodyLimitBytes });
  await app.register(fastifyHelmet, {
    enableCSPNonces: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'https:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    referrerPolicy: { policy: 'no-referrer' },
  });
  await app.register(fastifyRateLimit, { global: false });
}
