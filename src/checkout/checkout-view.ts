/**
 * Rendering of the checkout page's screens with Eta (auto-escaping on: every `<%= %>` is
 * HTML-escaped; `<%~ %>` is only used for the layout body and partials rendered by Eta itself).
 * The view data never carries a key, a secret or a database id: only what the customer sees.
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { RailRow } from '../payments/rails.ts';
import type { TransactionRow } from '../payments/transaction-view.ts';
import type { CheckoutAttemptRow } from '../payments/checkout-attempt-records.ts';
import { failureMessage } from './failure-messages.ts';
import { brandColours, formatAmount, formatMsisdn, themeColour } from './format.ts';
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

/** Country names and a national example number, for hints and error messages. */
const COUNTRIES: Record<string, { name: string; example: string }> = {
  CM: { name: 'du Cameroun', example: '6 77 12 34 56' },
  CI: { name: "de Côte d'Ivoire", example: '07 01 02 03 04' },
  SN: { name: 'du Sénégal', example: '77 123 45 67' },
  BJ: { name: 'du Bénin', example: '01 90 01 12 34' },
  GH: { name: 'du Ghana', example: '024 123 4567' },
  UG: { name: "d'Ouganda", example: '0772 123456' },
  KE: { name: 'du Kenya', example: '0712 345678' },
};

/** "du Cameroun"-like phrase for a country code (the code itself when unknown). */
export function countryPhrase(country: string): string {
  return COUNTRIES[country]?.name ?? `(${country})`;
}

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

/** What every screen shares: the merchant's identity, the amount, the test banner. */
function base(row: TransactionRow, app: PageApplication, styleNonce: string) {
  return {
    appName: app.name,
    logoUrl: isHttpUrl(app.logoUrl) ? app.logoUrl : null,
    brand: brandColours(themeColour(app.themeColor)),
    styleNonce,
    amountText: formatAmount(row.amount, row.currency),
    description: row.description,
    reference: row.reference,
    isTest: row.environment === 'TEST',
    redirectUrl: null as string | null,
    redirectDelaySeconds: 3,
    refreshWhileWaiting: false,
  };
}

/** The hint under the phone field: an example number of the rails' country, when they share one. */
export function phoneHint(rails: RailRow[]): string {
  const countries = [...new Set(rails.map((r) => r.country))];
  if (countries.length === 1) {
    const c = COUNTRIES[countries[0]!];
    if (c) return `Le numéro qui va payer, par exemple ${c.example}.`;
  }
  return 'Le numéro qui va payer, avec ou sans indicatif du pays.';
}

/** The payment form, with the previous attempt's failure or the posted form's errors. */
export function renderForm(input: {
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
  const { row, rails } = input;
  let notice = input.notice ?? null;
  if (!notice && input.lastAttempt?.status === 'FAILED') {
    notice = {
      title: `Le paiement n'a pas abouti : ${failureMessage(input.lastAttempt.failureCode)}`,
      text: 'Vous pouvez réessayer, avec le même numéro ou un autre numéro ou opérateur.',
    };
  }
  const values = {
    rail: input.values?.rail ?? input.lastAttempt?.railCode ?? rails[0]?.code ?? '',
    phone: input.values?.phone ?? '',
  };
  return eta.render('./form', {
    ...base(row, input.app, input.styleNonce),
    title: 'Paiement',
    rails: rails.map((r) => ({ code: r.code, name: r.name })),
    phoneHint: phoneHint(rails),
    csrf: input.csrf,
    values,
    errors: input.errors ?? {},
    notice,
    paths: checkoutPaths(row.checkoutToken!),
  });
}

/** "Confirm on your phone": the attempt in flight, the rail's USSD hint, live status. */
export function renderWaiting(input: {
  row: TransactionRow;
  app: PageApplication;
  attempt: CheckoutAttemptRow;
  rail: RailRow | null;
  csrf: string;
  styleNonce: string;
}): string {
  const country = input.rail?.country ?? 'CM';
  return eta.render('./waiting', {
    ...base(input.row, input.app, input.styleNonce),
    refreshWhileWaiting: true,
    title: 'Confirmez sur votre téléphone',
    attempt: {
      phoneText: formatMsisdn(input.attempt.msisdn, country),
      railName: input.rail?.name ?? input.attempt.railCode,
      ussdHint: input.rail?.ussdHint ?? null,
      // Redirect rails: back on our page before paying, the customer can return to the operator's.
      redirectUrl: input.attempt.redirectUrl && /^https?:\/\//i.test(input.attempt.redirectUrl) ? input.attempt.redirectUrl : null,
    },
    csrf: input.csrf,
    paths: checkoutPaths(input.row.checkoutToken!),
  });
}

/** The final screen of a terminal checkout; redirects to the merchant when it gave a URL. */
export function renderResult(input: { row: TransactionRow; app: PageApplication; styleNonce: string; isExpired: boolean }): string {
  const { row } = input;
  const params = { reference: row.reference, merchantReference: row.merchantReference, status: row.status };
  const common = base(row, input.app, input.styleNonce);
  if (input.isExpired) {
    return eta.render('./result', {
      ...common,
      title: 'Session expirée',
      tone: 'neutral',
      heading: 'Cette session de paiement a expiré',
      lines: ["Aucun paiement n'a été effectué. Retournez sur le site du marchand pour recommencer."],
      backUrl: returnUrl(row.cancelUrl, params),
    });
  }
  switch (row.status) {
    case 'SUCCESS':
      return eta.render('./result', {
        ...common,
        title: 'Paiement réussi',
        tone: 'success',
        heading: 'Paiement réussi',
        lines: ['Merci ! Votre paiement a bien été reçu.'],
        redirectUrl: returnUrl(row.successUrl, params),
      });
    case 'CANCELLED':
      return eta.render('./result', {
        ...common,
        title: 'Paiement annulé',
        tone: 'neutral',
        heading: 'Paiement annulé',
        lines: ["Vous avez annulé le paiement. Aucun montant n'a été débité."],
        redirectDelaySeconds: 2,
        redirectUrl: returnUrl(row.cancelUrl, params),
      });
    default:
      return eta.render('./result', {
        ...common,
        title: 'Paiement échoué',
        tone: 'error',
        heading: "Le paiement n'a pas abouti",
        lines: [failureMessage(row.failureCode)],
        backUrl: returnUrl(row.cancelUrl, params),
      });
  }
}

/** The page of a request refused by the pages' rate limit. */
export function renderTooManyAttempts(): string {
  return renderMessage({ heading: 'Trop de tentatives', lines: ['Trop de tentatives de paiement depuis cette connexion. Réessayez dans quelques minutes.'] });
}

/** The page of a form post refused for its CSRF token, with `link` back to the form. */
export function renderFormExpired(link: { href: string; text: string }): string {
  return renderMessage({
    heading: 'Formulaire expiré',
    lines: ["Pour votre sécurité, ce formulaire n'a pas été accepté. Rechargez la page et réessayez (les cookies doivent être autorisés)."],
    link,
  });
}

/** A standalone message page (unknown session, refused form post, too many requests, hand-over to a redirect rail with `refreshUrl`). */
export function renderMessage(input: { heading: string; lines: string[]; link?: { href: string; text: string }; refreshUrl?: string }): string {
  return eta.render('./message', { ...input, link: input.link ?? null, refreshUrl: input.refreshUrl ?? null });
}
