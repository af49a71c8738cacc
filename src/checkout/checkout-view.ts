/**
 * Rendering of the checkout page's screens with Eta (auto-escaping on: every `<%= %>` is
 * HTML-escaped; `<%~ %>` is only used for the layout body and partials rendered by Eta itself).
 * The view data never carries a key, a secret or a database id: only what the customer sees.
 * Every text comes from the page language's catalogue (`page-messages.ts`), passed as `m`.
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { CheckoutAttemptRow, RailRow, TransactionRow } from '../payments/index.ts';
import { brandColours, formatAmount, formatMsisdn, themeColour } from './format.ts';
import { failureMessage, ussdHintText, type PageMessages } from './page-messages.ts';
import { returnUrl } from './return-url.ts';

const eta = new Eta({
  views: fileURLToPath(new URL('./views', import.meta.url)),
  autoEscape: true,
  cache: true,
});

/** The application fields the page shows. */
export interface PageApplication {
  name: string;
  logoUrl: string | null;
  themeColor: string | null;
}

/** A national example number per country, for the phone field's hint. */
const EXAMPLE_NUMBERS: Record<string, string> = {
  CM: '6 77 12 34 56',
  CI: '07 01 02 03 04',
  SN: '77 123 45 67',
  BJ: '01 90 01 12 34',
  GH: '024 123 4567',
  UG: '0772 123456',
  KE: '0712 345678',
};

/** Paths of the page's endpoints for a session token. */
export function checkoutPaths(token: string) {
  const page = `/checkout/${token}`;
  return { page, pay: `${page}/pay`, cancel: `${page}/cancel`, status: `${page}/status` };
}

function isHttpUrl(value: string | null): value is string {
  if (!value) return false;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** What every screen shares: the language, the merchant's identity, the amount, the test banner. */
function base(m: PageMessages, row: TransactionRow, app: PageApplication, styleNonce: string) {
  return {
    m,
    appName: app.name,
    logoUrl: isHttpUrl(app.logoUrl) ? app.logoUrl : null,
    brand: brandColours(themeColour(app.themeColor)),
    styleNonce,
    amountText: formatAmount(row.amount, row.currency, m.intlLocale),
    description: row.description,
    reference: row.reference,
    isTest: row.environment === 'TEST',
    redirectUrl: null as string | null,
    redirectDelaySeconds: 3,
    refreshWhileWaiting: false,
  };
}

/** The hint under the phone field: an example number of the rails' country, when they share one. */
export function phoneHint(m: PageMessages, rails: RailRow[]): string {
  const countries = [...new Set(rails.map((r) => r.country))];
  const example = countries.length === 1 ? EXAMPLE_NUMBERS[countries[0]!] : undefined;
  return example ? m.form.phoneHintExample(example) : m.form.phoneHintAny;
}

/** The payment form, with the previous attempt's failure or the posted form's errors. */
export function renderForm(input: {
  m: PageMessages;
  row: TransactionRow;
  app: PageApplication;
  rails: RailRow[];
  csrf: string;
  styleNonce: string;
  values?: { rail?: string; phone?: string };
  errors?: { rail?: string; phone?: string };
  lastAttempt?: CheckoutAttemptRow | null;
  notice?: { title: string; text: string } | null;
}): string {
  const { m, row, rails } = input;
  let notice = input.notice ?? null;
  if (!notice && input.lastAttempt?.status === 'FAILED') {
    notice = { title: m.form.lastAttemptFailed(failureMessage(m, input.lastAttempt.failureCode)), text: m.form.retry };
  }
  const values = {
    rail: input.values?.rail ?? input.lastAttempt?.railCode ?? rails[0]?.code ?? '',
    phone: input.values?.phone ?? '',
  };
  const common = base(m, row, input.app, input.styleNonce);
  return eta.render('./form', {
    ...common,
    title: m.form.title,
    payText: m.form.payAmount(common.amountText),
    rails: rails.map((r) => ({ code: r.code, name: r.name })),
    phoneHint: phoneHint(m, rails),
    csrf: input.csrf,
    values,
    errors: input.errors ?? {},
    notice,
    paths: checkoutPaths(row.checkoutToken!),
  });
}

/** "Confirm on your phone": the attempt in flight, the rail's USSD hint, live status. */
export function renderWaiting(input: {
  m: PageMessages;
  row: TransactionRow;
  app: PageApplication;
  attempt: CheckoutAttemptRow;
  rail: RailRow | null;
  csrf: string;
  styleNonce: string;
}): string {
  const { m } = input;
  const country = input.rail?.country ?? 'CM';
  const railName = input.rail?.name ?? input.attempt.railCode;
  return eta.render('./waiting', {
    ...base(m, input.row, input.app, input.styleNonce),
    refreshWhileWaiting: true,
    title: m.waiting.title,
    attempt: {
      phoneText: formatMsisdn(input.attempt.msisdn, country),
      railName,
      continueText: m.waiting.continueTo(railName),
      ussdHint: ussdHintText(m, input.rail?.ussdHint ?? null),
      // Redirect rails: back on our page before paying, the customer can return to the operator's.
      redirectUrl: input.attempt.redirectUrl && /^https?:\/\//i.test(input.attempt.redirectUrl) ? input.attempt.redirectUrl : null,
    },
    csrf: input.csrf,
    paths: checkoutPaths(input.row.checkoutToken!),
  });
}

/** The final screen of a terminal checkout; redirects to the merchant when it gave a URL. */
export function renderResult(input: { m: PageMessages; row: TransactionRow; app: PageApplication; styleNonce: string; isExpired: boolean }): string {
  const { m, row } = input;
  const params = { reference: row.reference, merchantReference: row.merchantReference, status: row.status };
  const common = base(m, row, input.app, input.styleNonce);
  if (input.isExpired) {
    return eta.render('./result', {
      ...common,
      title: m.result.expiredTitle,
      tone: 'neutral',
      heading: m.result.expiredHeading,
      lines: [m.result.expiredText],
      backUrl: returnUrl(row.cancelUrl, params),
    });
  }
  switch (row.status) {
    case 'SUCCESS':
      return eta.render('./result', {
        ...common,
        title: m.result.successTitle,
        tone: 'success',
        heading: m.result.successTitle,
        lines: [m.result.successText],
        redirectUrl: returnUrl(row.successUrl, params),
      });
    case 'CANCELLED':
      return eta.render('./result', {
        ...common,
        title: m.result.cancelledTitle,
        tone: 'neutral',
        heading: m.result.cancelledTitle,
        lines: [m.result.cancelledText],
        redirectDelaySeconds: 2,
        redirectUrl: returnUrl(row.cancelUrl, params),
      });
    default:
      return eta.render('./result', {
        ...common,
        title: m.result.failedTitle,
        tone: 'error',
        heading: m.result.failedHeading,
        lines: [failureMessage(m, row.failureCode)],
        backUrl: returnUrl(row.cancelUrl, params),
      });
  }
}

/** The page of a request refused by the pages' rate limit. */
export function renderTooManyAttempts(m: PageMessages): string {
  return renderMessage(m, { heading: m.message.tooManyHeading, lines: [m.message.tooManyText] });
}

/** The page of a form post refused for its CSRF token, with `link` back to the form. */
export function renderFormExpired(m: PageMessages, link: { href: string; text: string }): string {
  return renderMessage(m, { heading: m.message.formExpiredHeading, lines: [m.message.formExpiredText], link });
}

/** The page of a request the page's error handler answers: 4xx (`isClientError`) or 500. */
export function renderRequestError(m: PageMessages, isClientError: boolean): string {
  return renderMessage(
    m,
    isClientError
      ? { heading: m.message.badRequestHeading, lines: [m.message.badRequestText] }
      : { heading: m.message.errorHeading, lines: [m.message.errorText] },
  );
}

/** A standalone message page (unknown session, refused form post, too many requests, hand-over to a redirect rail with `refreshUrl`). */
export function renderMessage(m: PageMessages, input: { heading: string; lines: string[]; link?: { href: string; text: string }; refreshUrl?: string }): string {
  return eta.render('./message', { ...input, lang: m.lang, link: input.link ?? null, refreshUrl: input.refreshUrl ?? null });
}
