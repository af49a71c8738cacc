/**
 * The public page of a fund collection, at `/collect/{slug}` (the path of SharePay's public
 * collection pages), in the payer's browser language (French or English, `page-locale.ts`; answers
 * carry `Vary: Accept-Language`), mobile first, working without JavaScript, under the same
 * protections as the hosted checkout (strict CSP with nonces, signed double-submit CSRF token on
 * form posts, rate limits per IP, no referrer):
 * - `GET /collect/:slug`: the form (free or fixed amount, rail, number, optional name and e-mail);
 *   404 for an unknown slug, 410 with the reason once CLOSED, EXPIRED or DELETED;
 * - `POST /collect/:slug/pay`: the form without JavaScript (CSRF-checked, rate-limited per IP,
 *   fields checked here first so errors are in the page's language, then by the use case), then
 *   post/redirect/get to the payment's screen. With JavaScript the page posts JSON to
 *   `/api/v1/public/collect/confirm` instead (`routes/public-collect.ts`), same use case;
 * - `GET /collect/:slug/paiement/:reference?t=…`: "confirm on your phone" (meta refresh without
 *   JavaScript, polling with it), then thanks or the failure and a retry link;
 * - `GET /collect/assets/collect.js`: the page script (no inline script: strict CSP).
 */
import { readFileSync } from 'node:fs';
import { registerPublicPagePlugins } from './page-plugins.ts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { baseUnitDigits } from '../domain/currency.ts';
import { ApiError } from '../domain/errors.ts';
import { collectionStatus, findCollectionBySlug } from '../collections/index.ts';
import {
  collectionRails,
  findCollectPayment,
  findOpenCollection,
  payFundCollection,
  refreshCollectPayment,
  type OpenCollection,
} from '../collections/index.ts';
import { findRail, type RailRow } from '../payments/index.ts';
import type { Services } from '../services.ts';
import { renderFormExpired, renderMessage, renderRequestError, renderTooManyAttempts } from './checkout-view.ts';
import { collectPaths, collectStatusToken, isValidCollectStatusToken } from './collect-token.ts';
import { renderCollectForm, renderCollectResult, renderCollectWaiting, type CollectFormState } from './collect-view.ts';
import { checkoutCsrfSecret, csrfToken, CSRF_FIELD, isCsrfNonce, isValidCsrfToken, newCsrfNonce } from './csrf.ts';
import { formatAmount, parseAmountInput } from './format.ts';
import { requestMessages } from './page-locale.ts';
import type { PageMessages } from './page-messages.ts';
import { checkPayerPhone } from './payer-phone.ts';

const FORM_BODY_LIMIT_BYTES = 4096;
/** The collection page's CSRF cookie (its own name and path: it never meets the checkout's). */
const COLLECT_CSRF_COOKIE = 'kolo_collect';
const SCRIPT = readFileSync(new URL('./assets/collect.js', import.meta.url));

type SlugRequest = FastifyRequest<{ Params: { slug: string } }>;
type PaymentRequest = FastifyRequest<{ Params: { slug: string; reference: string }; Querystring: { t?: string } }>;

/** Registers the collection page, its payment screen and its script (in their own scope). */
export async function collectPageRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const secret = checkoutCsrfSecret(services.config);
  const isSecure = services.config.publicBaseUrl.startsWith('https:');

  await registerPublicPagePlugins(app, FORM_BODY_LIMIT_BYTES);

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const m = requestMessages(request);
    if (error.statusCode === 429) {
      return sendHtml(reply, 429, renderTooManyAttempts(m));
    }
    const isClientError = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
    if (!isClientError) request.log.error({ err: error }, 'collect page error');
    return sendHtml(reply, isClientError ? 400 : 500, renderRequestError(m, isClientError));
  });

  app.get('/collect/assets/collect.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );

  const pageLimit = { rateLimit: { max: 120, timeWindow: 60_000 } };

  app.get('/collect/:slug', { schema: { hide: true }, config: pageLimit }, async (request: SlugRequest, reply) => {
    const open = await openOrExplain(request.services, request, reply, request.params.slug);
    if (!open) return reply;
    return renderFormReply(request, reply, open, 200, {});
  });

  app.post(
    '/collect/:slug/pay',
    { schema: { hide: true }, config: { rateLimit: { max: services.config.checkoutAttemptsPerIpPerHour, timeWindow: 3_600_000 } } },
    async (request: SlugRequest, reply) => {
      const { slug } = request.params;
      const m = requestMessages(request);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (!isValidCsrfToken(secret, slug, request.cookies[COLLECT_CSRF_COOKIE], body[CSRF_FIELD])) return csrfRefused(reply, m, slug);
      const open = await openOrExplain(request.services, request, reply, slug);
      if (!open) return reply;
      const text = (name: string, max: number) => (typeof body[name] === 'string' ? (body[name] as string).slice(0, max) : '');
      const values = {
        amount: text('amount', 20),
        paymentMethod: text('paymentMethod', 64),
        payerAccount: text('payerAccount', 40),
        payerName: text('payerName', 255).trim(),
        payerEmail: text('payerEmail', 255).trim(),
      };
      const errors: CollectFormState['errors'] = {};
      let amount: number | undefined;
      if (!open.row.isAmountFixed) {
        // Typed in major units (`50.50` KES); the use case takes base units (5050).
        const parsed = parseAmountInput(values.amount, open.row.currency);
        if (parsed === 'EMPTY') errors.amount = m.errors.amountRequired;
        else if (parsed === 'INVALID') errors.amount = baseUnitDigits(open.row.currency) === 0 ? m.errors.amountInvalid : m.errors.amountInvalidDecimals;
        else amount = parsed;
      }
      // The use case checks all of this again; checked here first, its errors are in the page's language.
      const rails = await collectionRails(request.services, open.row);
      const rail = rails.find((r) => r.code === values.paymentMethod);
      if (!rail) errors.paymentMethod = m.errors.chooseOperator;
      const payable = open.row.isAmountFixed ? open.row.amount : amount;
      const limitError = rail && payable !== undefined && payable !== null ? railLimitError(m, rail, payable) : null;
      if (limitError) errors[open.row.isAmountFixed ? 'paymentMethod' : 'amount'] = limitError;
      const phoneError = checkPayerPhone(m, values.payerAccount, rail, rails).error;
      if (phoneError) errors.payerAccount = phoneError;
      if (open.row.collectCustomerInfo && values.payerEmail !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.payerEmail)) {
        errors.payerEmail = m.errors.emailInvalid;
      }
      if (Object.keys(errors).length > 0) return renderFormReply(request, reply, open, 400, { values, errors });
      try {
        const started = await payFundCollection(request.services, {
          slug,
          amount,
          paymentMethod: values.paymentMethod,
          payerAccount: values.payerAccount,
          payerName: values.payerName || undefined,
          payerEmail: values.payerEmail || undefined,
        });
        const token = collectStatusToken(secret, started.row.reference);
        if (started.redirectUrl && /^https?:\/\//i.test(started.redirectUrl)) {
          // Redirect rail (Wave): a page that navigates on (the form-action CSP keeps posts on our origin).
          return sendHtml(
            reply,
            200,
            renderMessage(m, {
              heading: m.message.redirectHeading(rail!.name),
              lines: [m.message.redirectText(rail!.name)],
              link: { href: started.redirectUrl, text: m.waiting.continueTo(rail!.name) },
              refreshUrl: started.redirectUrl,
            }),
          );
        }
        return reply.redirect(collectPaths(slug).payment(started.row.reference, token), 303);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        // What the checks above could not see (a rail or collection changed meanwhile): the
        // field the use case names, with the catalogue's sentence for it.
        if (error.code === 'COLLECTION_NOT_FOUND' || error.code === 'COLLECTION_NOT_AVAILABLE') {
          return (await openOrExplain(request.services, request, reply, slug)) ? reply.redirect(collectPaths(slug).page, 303) : reply;
        }
        if (error.code === 'VALIDATION_ERROR') return renderFormReply(request, reply, open, 400, { values, errors: formErrors(m, error.data) });
        if (error.code === 'PROVIDER_NOT_FOUND') return renderFormReply(request, reply, open, 400, { values, errors: { paymentMethod: m.errors.chooseOperator } });
        if (error.code === 'AMOUNT_BELOW_MINIMUM' || error.code === 'AMOUNT_ABOVE_MAXIMUM') {
          const field = open.row.isAmountFixed ? 'paymentMethod' : 'amount';
          return renderFormReply(request, reply, open, 400, { values, errors: { [field]: m.script.amountRefused } });
        }
        throw error;
      }
    },
  );

  app.get('/collect/:slug/paiement/:reference', { schema: { hide: true }, config: pageLimit }, async (request: PaymentRequest, reply) => {
    const { slug, reference } = request.params;
    const m = requestMessages(request);
    const found = await findCollectionBySlug(services.db, slug);
    const payment = found && isValidCollectStatusToken(secret, reference, request.query.t) ? await findCollectPayment(request.services, reference) : null;
    if (!found || !payment || payment.merchantReference !== found.row.slug) {
      return sendHtml(reply, 404, renderMessage(m, { heading: m.collect.paymentNotFoundHeading, lines: [m.collect.paymentNotFoundText] }));
    }
    const row = await refreshCollectPayment(request.services, payment);
    const app = found.application;
    const isOpen = collectionStatus(found.row, services.clock.now()) === 'ACTIVE' && app.deletedAt === null;
    if (row.status === 'PENDING') {
      const rail = row.paymentMethod ? await findRail(services.db, row.paymentMethod) : null;
      const token = request.query.t!;
      return sendHtml(
        reply,
        200,
        renderCollectWaiting({
          m,
          collection: found.row,
          app,
          payment: row,
          rail,
          statusUrl: `/api/v1/public/collect/payments/${row.reference}?token=${token}`,
          pageUrl: collectPaths(slug).payment(row.reference, token),
          styleNonce: styleNonce(reply),
        }),
      );
    }
    return sendHtml(
      reply,
      200,
      renderCollectResult({ m, collection: found.row, app, payment: row, againUrl: isOpen ? collectPaths(slug).page : null, styleNonce: styleNonce(reply) }),
    );
  });

  /** The open collection of `slug`, or null after answering 404 / 410 with the reason in the page's language. */
  async function openOrExplain(services: Services, request: FastifyRequest, reply: FastifyReply, slug: string): Promise<OpenCollection | null> {
    const m = requestMessages(request);
    try {
      return await findOpenCollection(services, slug);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'COLLECTION_NOT_FOUND') {
        sendHtml(reply, 404, renderMessage(m, { heading: m.collect.notFoundHeading, lines: [m.collect.notFoundText] }));
        return null;
      }
      const found = await findCollectionBySlug(services.db, slug);
      const status = found ? collectionStatus(found.row, services.clock.now()) : 'DELETED';
      const reasons = m.collect.closedReasons;
      const reason = status === 'CLOSED' || status === 'EXPIRED' || status === 'DELETED' ? reasons[status] : reasons.PAUSED;
      sendHtml(reply, 410, renderMessage(m, { heading: m.collect.closedHeading, lines: [reason, m.collect.nothingDebited] }));
      return null;
    }
  }

  function browserNonce(request: FastifyRequest, reply: FastifyReply): string {
    const current = request.cookies[COLLECT_CSRF_COOKIE];
    if (isCsrfNonce(current)) return current;
    const nonce = newCsrfNonce();
    reply.setCookie(COLLECT_CSRF_COOKIE, nonce, { path: '/collect', httpOnly: true, sameSite: 'strict', secure: isSecure });
    return nonce;
  }

  async function renderFormReply(request: FastifyRequest, reply: FastifyReply, open: OpenCollection, status: number, state: CollectFormState) {
    const nonce = browserNonce(request, reply);
    const rails = await collectionRails(request.services, open.row);
    const html = renderCollectForm({
      m: requestMessages(request),
      open,
      rails,
      csrf: csrfToken(secret, open.row.slug, nonce),
      styleNonce: styleNonce(reply),
      paths: collectPaths(open.row.slug),
      state,
    });
    return sendHtml(reply, status, html);
  }
}

/** The fields the use case's VALIDATION_ERROR names, with the catalogue's sentence for each. */
function formErrors(m: PageMessages, data: Record<string, string> | null): CollectFormState['errors'] {
  const texts = { amount: m.script.amountRefused, paymentMethod: m.script.chooseOperator, payerAccount: m.script.numberRefused, payerEmail: m.script.emailRefused };
  const errors: CollectFormState['errors'] = {};
  for (const field of ['amount', 'paymentMethod', 'payerAccount', 'payerEmail'] as const) {
    if (data?.[field]) errors[field] = texts[field];
  }
  return errors;
}

/** The error of an `amount` (base units) outside `rail`'s limits, or null within them. */
function railLimitError(m: PageMessages, rail: RailRow, amount: number): string | null {
  if (amount < rail.minAmount) return m.errors.amountBelowRail(rail.name, formatAmount(rail.minAmount, rail.currency, m.intlLocale));
  if (amount > rail.maxAmount) return m.errors.amountAboveRail(rail.name, formatAmount(rail.maxAmount, rail.currency, m.intlLocale));
  return null;
}

/** An HTML answer; its language follows Accept-Language, so shared caches must key on it. */
function sendHtml(reply: FastifyReply, status: number, html: string) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').header('vary', 'Accept-Language').send(html);
}

function styleNonce(reply: FastifyReply): string {
  return (reply as unknown as { cspNonce: { style: string } }).cspNonce.style;
}

function csrfRefused(reply: FastifyReply, m: PageMessages, slug: string) {
  return sendHtml(reply, 403, renderFormExpired(m, { href: collectPaths(slug).page, text: m.message.reloadCollect }));
}
