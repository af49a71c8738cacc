/**
 * The hosted checkout page behind a checkout's `paymentUrl` (`<public base>/checkout/<token>`, as
 * the merchant API's checkout operation returns it), in the payer's browser language (French or
 * English, `page-locale.ts`; answers carry `Vary: Accept-Language`), mobile first, working without
 * JavaScript:
 * - `GET /checkout/:token`: the form (rail and phone number), "confirm on your phone" while an
 *   attempt is in flight, or the final screen; 404 for an unknown session, 410 once expired;
 * - `POST /checkout/:token/pay`: starts an attempt (CSRF-checked, rate-limited per IP and per
 *   session), then redirects to the page (post/redirect/get);
 * - `POST /checkout/:token/cancel`: the customer backs out → CANCELLED → cancelUrl;
 * - `GET /checkout/:token/status`: a small JSON envelope the page's script polls;
 * - `GET /checkout/assets/*`: the page's stylesheet and script (no inline script: strict CSP).
 * Reads of a PENDING checkout run its backstop (`refreshCheckout`: at most one operator call,
 * only when the attempt is due), so the page follows the payment without waiting for the poller.
 */
import { isRailClosed } from '../rails/index.ts';
import { readFileSync } from 'node:fs';
import { registerPublicPagePlugins } from './page-plugins.ts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eq } from 'drizzle-orm';
import { applications, providers, transactions } from '../db/schema.ts';
import { isAcceptingPayments } from '../accounts/applications.ts';
import { resolveConnector, type Environment } from '../connectors/registry.ts';
import { ok } from '../http/envelope.ts';
import { sendError } from '../http/error-handler.ts';
import {
  cancelCheckout,
  type CheckoutAttemptRow,
  findLatestAttempt,
  findPendingAttempt,
  offeredRails,
  type RailRow,
  refreshCheckout,
  startCheckoutAttempt,
  type TransactionRow,
} from '../payments/index.ts';
import { checkoutCsrfSecret } from './csrf.ts';
import type { Services } from '../services.ts';
import { CSRF_COOKIE, CSRF_FIELD, csrfToken, isCsrfNonce, isValidCsrfToken, newCsrfNonce } from './csrf.ts';
import { checkoutPaths, renderForm, renderFormExpired, renderMessage, renderRequestError, renderResult, renderTooManyAttempts, renderWaiting, type PageApplication } from './checkout-view.ts';
import { formatAmount } from './format.ts';
import { requestMessages } from './page-locale.ts';
import type { PageMessages } from './page-messages.ts';
import { checkPayerPhone } from './payer-phone.ts';

const TOKEN_PATTERN = /^cs_[0-9a-f]{32}$/;
const FORM_BODY_LIMIT_BYTES = 4096;

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'checkout.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/checkout.css', import.meta.url)) },
  'checkout.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/checkout.js', import.meta.url)) },
};

type TokenRequest = FastifyRequest<{ Params: { token: string } }>;

/** True when the checkout's session is over: expired by the backstop, or past `expiresAt`. */
function isExpired(row: TransactionRow, now: Date): boolean {
  return (
    (row.status === 'FAILED' && row.failureCode === 'SESSION_EXPIRED') ||
    (row.status === 'PENDING' && row.expiresAt !== null && row.expiresAt <= now)
  );
}

/**
 * True when the page must show the expired screen. A session past its end with an attempt still
 * in flight is not over yet: the customer may still approve it on the phone, and the backstop
 * only expires the session once that attempt has resolved (bounded by the rail's deadline).
 */
async function isSessionOver(services: Services, row: TransactionRow, now: Date): Promise<boolean> {
  if (!isExpired(row, now)) return false;
  if (row.status !== 'PENDING') return true;
  return (await findPendingAttempt(services.db, row.id)) === null;
}

/** Registers the checkout page, its assets and its status endpoint (in their own scope). */
export async function checkoutPageRoutes(app: FastifyInstance, services: Services): Promise<void> {
  // Generated into the data directory when not configured, so forms survive a restart.
  const csrfSecret = checkoutCsrfSecret(services.config);
  const isSecure = services.config.publicBaseUrl.startsWith('https:');

  await registerPublicPagePlugins(app, FORM_BODY_LIMIT_BYTES);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const isJson = request.url.endsWith('/status');
    const m = requestMessages(request);
    if (error.statusCode === 429) {
      if (isJson) return sendError(reply, services.clock, 'TOO_MANY_REQUESTS');
      return sendHtml(reply, 429, renderTooManyAttempts(m));
    }
    const isClientError = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
    if (!isClientError) request.log.error({ err: error }, 'checkout page error');
    if (isJson) return sendError(reply, services.clock, isClientError ? 'INVALID_PARAMETER' : 'INTERNAL_SERVER_ERROR');
    return sendHtml(reply, isClientError ? 400 : 500, renderRequestError(m, isClientError));
  });

  app.get<{ Params: { file: string } }>('/checkout/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = Object.hasOwn(ASSETS, request.params.file) ? ASSETS[request.params.file] : undefined;
    if (!asset) return sendError(reply, services.clock, 'RESOURCE_NOT_FOUND');
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.body);
  });

  const pageLimit = { rateLimit: { max: 120, timeWindow: 60_000 } };

  app.get('/checkout/:token', { schema: { hide: true }, config: pageLimit }, async (request: TokenRequest, reply) => {
    const row = await loadFresh(request.services, request.params.token);
    if (!row) return notFound(reply, requestMessages(request));
    return showPage(request.services, request, reply, row, csrfSecret, isSecure);
  });

  app.get('/checkout/:token/status', { schema: { hide: true }, config: pageLimit }, async (request: TokenRequest, reply) => {
    reply.header('cache-control', 'no-store');
    const row = await loadFresh(request.services, request.params.token);
    if (!row) return sendError(reply, services.clock, 'RESOURCE_NOT_FOUND', 'Session de paiement introuvable.');
    if (await isSessionOver(request.services, row, services.clock.now())) return sendError(reply, services.clock, 'SESSION_EXPIRED');
    const latest = await findLatestAttempt(services.db, row.id);
    return ok(
      { status: row.status, attemptStatus: latest?.status ?? null, attemptFailureCode: latest?.status === 'FAILED' ? latest.failureCode : null },
      'Statut de la session de paiement.',
      services.clock.now(),
    );
  });

  app.post(
    '/checkout/:token/pay',
    {
      schema: { hide: true },
      config: { rateLimit: { max: services.config.checkoutAttemptsPerIpPerHour, timeWindow: 3_600_000 } },
    },
    async (request: TokenRequest, reply) => {
      const m = requestMessages(request);
      const row = await loadCheckout(request.services, request.params.token);
      if (!row) return notFound(reply, m);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (!isValidCsrfToken(csrfSecret, row.checkoutToken!, request.cookies[CSRF_COOKIE], body[CSRF_FIELD])) return csrfRefused(reply, m, row);
      const paths = checkoutPaths(row.checkoutToken!);
      if (row.status !== 'PENDING' || isExpired(row, services.clock.now())) return reply.redirect(paths.page, 303);
      if (!(await isAcceptingPayments(services.db, row.applicationId))) return closedMerchant(reply, m);

      const rails = await availableRails(request.services, row);
      const railCode = typeof body.rail === 'string' ? body.rail : '';
      const phone = typeof body.phone === 'string' ? body.phone.slice(0, 40) : '';
      const rail = rails.find((r) => r.code === railCode);
      const errors: { rail?: string; phone?: string } = {};
      if (!rail) {
        errors.rail = m.errors.chooseOperator;
      } else if (row.amount < rail.minAmount || row.amount > rail.maxAmount) {
        errors.rail = m.errors.railLimits(rail.name, formatAmount(rail.minAmount, rail.currency, m.intlLocale), formatAmount(rail.maxAmount, rail.currency, m.intlLocale));
      }
      const checked = checkPayerPhone(m, phone, rail, rails);
      if (checked.error) errors.phone = checked.error;
      const msisdn = checked.msisdn;
      if (errors.rail || errors.phone || !rail || !msisdn) {
        return renderFormReply(request.services, request, reply, row, rails, csrfSecret, isSecure, 400, { values: { rail: railCode, phone }, errors });
      }
      // A LIVE rail CLOSED for pay-ins takes no new attempt (RAIL_CLOSED): nothing is written or sent.
      if (row.environment === 'LIVE' && (await isRailClosed(request.services, 'LIVE', rail.code, 'PAY_IN'))) {
        return renderFormReply(request.services, request, reply, row, rails, csrfSecret, isSecure, 503, { values: { rail: railCode, phone }, errors: { rail: m.errors.railClosed(rail.name) } });
      }
      const connector = resolveConnector(services.connectors, rail.code, row.environment as Environment)!;
      const result = await startCheckoutAttempt(request.services, row, { rail, connector, msisdn, maxAttempts: services.config.checkoutMaxAttempts });
      if (result.kind === 'TOO_MANY_ATTEMPTS') {
        return renderFormReply(request.services, request, reply, row, rails, csrfSecret, isSecure, 429, {
          values: { rail: railCode, phone },
          notice: { title: m.form.tooManyAttemptsTitle, text: m.form.tooManyAttemptsText },
        });
      }
      // Redirect rail (Wave): the customer pays on the operator's page, which sends them back here.
      // A page that navigates on (not a 303: the form-action CSP keeps form posts on our origin).
      if (result.kind === 'STARTED' && result.redirectUrl && /^https?:\/\//i.test(result.redirectUrl)) {
        return sendHtml(
          reply,
          200,
          renderMessage(m, {
            heading: m.message.redirectHeading(rail.name),
            lines: [m.message.redirectText(rail.name)],
            link: { href: result.redirectUrl, text: m.waiting.continueTo(rail.name) },
            refreshUrl: result.redirectUrl,
          }),
        );
      }
      return reply.redirect(paths.page, 303);
    },
  );

  app.post(
    '/checkout/:token/cancel',
    { schema: { hide: true }, config: { rateLimit: { max: 60, timeWindow: 60_000 } } },
    async (request: TokenRequest, reply) => {
      const m = requestMessages(request);
      const row = await loadCheckout(request.services, request.params.token);
      if (!row) return notFound(reply, m);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (!isValidCsrfToken(csrfSecret, row.checkoutToken!, request.cookies[CSRF_COOKIE], body[CSRF_FIELD])) return csrfRefused(reply, m, row);
      if (row.status === 'PENDING' && !isExpired(row, services.clock.now())) await cancelCheckout(request.services, row);
      return reply.redirect(checkoutPaths(row.checkoutToken!).page, 303);
    },
  );
}

/** An HTML answer; its language follows Accept-Language, so shared caches must key on it. */
function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').header('vary', 'Accept-Language').send(html);
}

function notFound(reply: FastifyReply, m: PageMessages) {
  return sendHtml(reply, 404, renderMessage(m, { heading: m.message.sessionNotFoundHeading, lines: [m.message.sessionNotFoundText] }));
}

/** The merchant's account or application is suspended: no new attempt, whatever the form says. */
function closedMerchant(reply: FastifyReply, m: PageMessages) {
  return sendHtml(reply, 403, renderMessage(m, { heading: m.message.unavailableHeading, lines: [m.message.unavailableText] }));
}

function csrfRefused(reply: FastifyReply, m: PageMessages, row: TransactionRow) {
  return sendHtml(reply, 403, renderFormExpired(m, { href: checkoutPaths(row.checkoutToken!).page, text: m.message.reloadCheckout }));
}

/** The CHECKOUT transaction of a well-formed session token, or null. */
async function loadCheckout(services: Services, token: string): Promise<TransactionRow | null> {
  if (!TOKEN_PATTERN.test(token)) return null;
  const [row] = await services.db.select().from(transactions).where(eq(transactions.checkoutToken, token)).limit(1);
  return row && row.type === 'CHECKOUT' ? row : null;
}

/** Loads the checkout and, when PENDING, runs its backstop first (bounded: one operator call). */
async function loadFresh(services: Services, token: string): Promise<TransactionRow | null> {
  const row = await loadCheckout(services, token);
  if (!row || row.status !== 'PENDING') return row;
  try {
    await refreshCheckout(services, row);
  } catch (error) {
    services.log.error({ err: error, reference: row.reference }, 'refreshing a checkout on read failed');
    return row;
  }
  return loadCheckout(services, token);
}

async function loadApplication(services: Services, applicationId: string): Promise<PageApplication> {
  const [app] = await services.db
    .select({ name: applications.name, logoUrl: applications.logoUrl, themeColor: applications.themeColor })
    .from(applications)
    .where(eq(applications.id, applicationId))
    .limit(1);
  return app ?? { name: 'Paiement', logoUrl: null, themeColor: null };
}

/** The rails offered to the checkout's payer: its currency and environment, the merchant's country (`offeredRails`). */
async function availableRails(services: Services, row: TransactionRow): Promise<RailRow[]> {
  return offeredRails(services, row);
}

/** The browser's CSRF nonce: the cookie's when valid, else a new one set as a cookie now. */
function browserNonce(request: FastifyRequest, reply: FastifyReply, isSecure: boolean): string {
  const current = request.cookies[CSRF_COOKIE];
  if (isCsrfNonce(current)) return current;
  const nonce = newCsrfNonce();
  reply.setCookie(CSRF_COOKIE, nonce, { path: '/checkout', httpOnly: true, sameSite: 'strict', secure: isSecure });
  return nonce;
}

function styleNonce(reply: FastifyReply): string {
  return (reply as unknown as { cspNonce: { style: string } }).cspNonce.style;
}

async function renderFormReply(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  row: TransactionRow,
  rails: RailRow[],
  csrfSecret: string,
  isSecure: boolean,
  status: number,
  extra: {
    values?: { rail?: string; phone?: string };
    errors?: { rail?: string; phone?: string };
    notice?: { title: string; text: string };
    lastAttempt?: CheckoutAttemptRow | null;
  },
) {
  const nonce = browserNonce(request, reply, isSecure);
  const html = renderForm({
    m: requestMessages(request),
    row,
    app: await loadApplication(services, row.applicationId),
    rails,
    csrf: csrfToken(csrfSecret, row.checkoutToken!, nonce),
    styleNonce: styleNonce(reply),
    ...extra,
  });
  return sendHtml(reply, status, html);
}

async function showPage(services: Services, request: FastifyRequest, reply: FastifyReply, row: TransactionRow, csrfSecret: string, isSecure: boolean) {
  const m = requestMessages(request);
  const now = services.clock.now();
  const app = await loadApplication(services, row.applicationId);
  if (await isSessionOver(services, row, now)) {
    return sendHtml(reply, 410, renderResult({ m, row, app, styleNonce: styleNonce(reply), isExpired: true }));
  }
  if (row.status !== 'PENDING') {
    return sendHtml(reply, 200, renderResult({ m, row, app, styleNonce: styleNonce(reply), isExpired: false }));
  }
  const inFlight = await findPendingAttempt(services.db, row.id);
  if (inFlight) {
    const nonce = browserNonce(request, reply, isSecure);
    const [rail] = await services.db.select().from(providers).where(eq(providers.code, inFlight.railCode)).limit(1);
    return sendHtml(
      reply,
      200,
      renderWaiting({ m, row, app, attempt: inFlight, rail: rail ?? null, csrf: csrfToken(csrfSecret, row.checkoutToken!, nonce), styleNonce: styleNonce(reply) }),
    );
  }
  if (!(await isAcceptingPayments(services.db, row.applicationId))) return closedMerchant(reply, m);
  const rails = await availableRails(services, row);
  const lastAttempt = await findLatestAttempt(services.db, row.id);
  return renderFormReply(services, request, reply, row, rails, csrfSecret, isSecure, 200, { lastAttempt });
}
