/**
 * Rendering of the fund collection page's screens (`/collect/{slug}`) with Eta, auto-escaping
 * on, in the checkout's layout and stylesheet: the form, "confirm on your phone", the result, and
 * standalone messages (unknown or unavailable collection). Only what the payer sees goes in.
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { FundCollectionRow } from '../payments/fund-collections.ts';
import type { OpenCollection } from '../payments/pay-fund-collection.ts';
import type { RailRow } from '../payments/rails.ts';
import type { TransactionRow } from '../payments/transaction-view.ts';
import { phoneHint } from './checkout-view.ts';
import { failureMessage } from './failure-messages.ts';
import { brandColours, formatAmount, formatMsisdn, themeColour } from './format.ts';

const eta = new Eta({ views: fileURLToPath(new URL('./views', import.meta.url)), autoEscape: true, cache: true });

/** The page script (progressive enhancement: JSON confirm, status polling). */
export const COLLECT_SCRIPT_URL = '/collect/assets/collect.js';

/** Values and field errors of the form (field names are the JSON API's). */
export interface CollectFormState {
  values?: { amount?: string; paymentMethod?: string; payerAccount?: string; payerName?: string; payerEmail?: string };
  errors?: Partial<Record<'amount' | 'paymentMethod' | 'payerAccount' | 'payerEmail', string>>;
  notice?: { title: string; text: string } | null;
}

function httpsUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    // The page's CSP only loads https images.
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

function currencyText(currency: string): string {
  return currency === 'XAF' || currency === 'XOF' ? 'FCFA' : currency;
}

/** "31 décembre 2026 à 23:59" in the server's time zone. */
function dateText(date: Date): string {
  return new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeStyle: 'short' }).format(date).replace(/\s/g, ' ');
}

function base(collection: FundCollectionRow, app: OpenCollection['application'], styleNonce: string) {
  return {
    appName: app.name,
    logoUrl: httpsUrl(app.logoUrl),
    brand: brandColours(themeColour(app.themeColor)),
    styleNonce,
    scriptUrl: COLLECT_SCRIPT_URL,
    collectTitle: collection.title,
    reference: null as string | null,
    isTest: collection.environment === 'TEST',
    redirectUrl: null,
    redirectDelaySeconds: 3,
    refreshWhileWaiting: false,
  };
}

/** The payment form of an open collection. */
export function renderCollectForm(input: {
  open: OpenCollection;
  rails: RailRow[];
  csrf: string;
  styleNonce: string;
  paths: { page: string; pay: string };
  state?: CollectFormState;
}): string {
  const { row } = input.open;
  const state = input.state ?? {};
  const values = {
    amount: state.values?.amount ?? (row.isAmountFixed || row.amount === null ? '' : String(row.amount)),
    paymentMethod: state.values?.paymentMethod ?? input.rails[0]?.code ?? '',
    payerAccount: state.values?.payerAccount ?? '',
    payerName: state.values?.payerName ?? '',
    payerEmail: state.values?.payerEmail ?? '',
  };
  const amountText = row.isAmountFixed && row.amount !== null ? formatAmount(row.amount, row.currency) : '';
  return eta.render('./collect-form', {
    ...base(row, input.open.application, input.styleNonce),
    title: row.title,
    slug: row.slug,
    collectDescription: row.description,
    coverUrl: httpsUrl(row.coverImageUrl),
    expiresText: row.expiresAt ? dateText(row.expiresAt) : null,
    isAmountFixed: row.isAmountFixed,
    amountText,
    currencyText: currencyText(row.currency),
    collectCustomerInfo: row.collectCustomerInfo,
    rails: input.rails.map((r) => ({ code: r.code, name: r.name })),
    phoneHint: phoneHint(input.rails),
    csrf: input.csrf,
    values,
    errors: state.errors ?? {},
    notice: state.notice ?? null,
    paths: input.paths,
    buttonText: amountText ? `Payer ${amountText}` : 'Payer',
  });
}

/** "Confirm on your phone" for a payment in flight. */
export function renderCollectWaiting(input: {
  collection: FundCollectionRow;
  app: OpenCollection['application'];
  payment: TransactionRow;
  rail: RailRow | null;
  statusUrl: string;
  pageUrl: string;
  styleNonce: string;
}): string {
  const { payment } = input;
  const country = input.rail?.country ?? 'CM';
  return eta.render('./collect-waiting', {
    ...base(input.collection, input.app, input.styleNonce),
    reference: payment.reference,
    refreshWhileWaiting: true,
    title: 'Confirmez sur votre téléphone',
    amountText: formatAmount(payment.amount, payment.currency),
    phoneText: payment.payerAccount ? formatMsisdn(payment.payerAccount, country) : '',
    railName: input.rail?.name ?? payment.paymentMethod ?? '',
    ussdHint: input.rail?.ussdHint ?? null,
    operatorUrl: payment.redirectUrl && /^https?:\/\//i.test(payment.redirectUrl) ? payment.redirectUrl : null,
    statusUrl: input.statusUrl,
    pageUrl: input.pageUrl,
  });
}

/** The end of a payment: thanks (with the collection's message) or why it failed. */
export function renderCollectResult(input: {
  collection: FundCollectionRow;
  app: OpenCollection['application'];
  payment: TransactionRow;
  againUrl: string | null;
  styleNonce: string;
}): string {
  const { payment, collection } = input;
  const common = {
    ...base(collection, input.app, input.styleNonce),
    reference: payment.reference,
    amountText: formatAmount(payment.amount, payment.currency),
    againUrl: input.againUrl,
  };
  if (payment.status === 'SUCCESS' || payment.status === 'REFUNDED') {
    return eta.render('./collect-result', {
      ...common,
      title: 'Paiement réussi',
      tone: 'success',
      heading: 'Merci ! Votre paiement a bien été reçu.',
      lines: [collection.thankYouMessage ?? `Votre contribution à « ${collection.title} » a été enregistrée.`],
      againText: 'Faire un autre paiement',
    });
  }
  return eta.render('./collect-result', {
    ...common,
    title: 'Paiement échoué',
    tone: 'error',
    heading: "Le paiement n'a pas abouti",
    lines: [failureMessage(payment.failureCode), "Aucun montant n'a été débité."],
    againText: 'Réessayer',
  });
}
