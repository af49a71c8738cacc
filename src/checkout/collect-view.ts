/**
 * Rendering of the fund collection page's screens (`/collect/{slug}`) with Eta, auto-escaping
 * on, in the checkout's layout and stylesheet: the form, "confirm on your phone", the result, and
 * standalone messages (unknown or unavailable collection). Only what the payer sees goes in;
 * every text comes from the page language's catalogue (`page-messages.ts`), passed as `m`.
 */
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { baseUnitDigits } from '../domain/currency.ts';
import type { FundCollectionRow } from '../collections/index.ts';
import type { OpenCollection } from '../collections/index.ts';
import type { RailRow, TransactionRow } from '../payments/index.ts';
import { phoneHint } from './checkout-view.ts';
import { amountInputText, brandColours, currencySymbol, formatAmount, formatMsisdn, themeColour } from './format.ts';
import { failureMessage, ussdHintText, type PageMessages } from './page-messages.ts';

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

/** "31 décembre 2026 à 23:59" (fr) or "31 December 2026 at 23:59" (en) in the server's time zone. */
function dateText(m: PageMessages, date: Date): string {
  return new Intl.DateTimeFormat(m.intlLocale, { dateStyle: 'long', timeStyle: 'short' }).format(date).replace(/\s/g, ' ');
}

function base(m: PageMessages, collection: FundCollectionRow, app: OpenCollection['application'], styleNonce: string) {
  return {
    m,
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
  m: PageMessages;
  open: OpenCollection;
  rails: RailRow[];
  csrf: string;
  styleNonce: string;
  paths: { page: string; pay: string };
  state?: CollectFormState;
}): string {
  const { m } = input;
  const { row } = input.open;
  const state = input.state ?? {};
  const values = {
    amount: state.values?.amount ?? (row.isAmountFixed || row.amount === null ? '' : amountInputText(row.amount, row.currency)),
    paymentMethod: state.values?.paymentMethod ?? input.rails[0]?.code ?? '',
    payerAccount: state.values?.payerAccount ?? '',
    payerName: state.values?.payerName ?? '',
    payerEmail: state.values?.payerEmail ?? '',
  };
  const amountText = row.isAmountFixed && row.amount !== null ? formatAmount(row.amount, row.currency, m.intlLocale) : '';
  return eta.render('./collect-form', {
    ...base(m, row, input.open.application, input.styleNonce),
    title: row.title,
    slug: row.slug,
    collectDescription: row.description,
    coverUrl: httpsUrl(row.coverImageUrl),
    expiresText: row.expiresAt ? dateText(m, row.expiresAt) : null,
    isAmountFixed: row.isAmountFixed,
    amountText,
    currencyText: currencySymbol(row.currency, m.intlLocale),
    amountDecimals: baseUnitDigits(row.currency),
    collectCustomerInfo: row.collectCustomerInfo,
    rails: input.rails.map((r) => ({ code: r.code, name: r.name })),
    phoneHint: phoneHint(m, input.rails),
    // The script's texts, read by collect.js from the form's data-messages attribute (escaped by Eta).
    scriptMessages: JSON.stringify(m.script),
    csrf: input.csrf,
    values,
    errors: state.errors ?? {},
    notice: state.notice ?? null,
    paths: input.paths,
    buttonText: amountText ? m.form.payAmount(amountText) : m.form.pay,
  });
}

/** "Confirm on your phone" for a payment in flight. */
export function renderCollectWaiting(input: {
  m: PageMessages;
  collection: FundCollectionRow;
  app: OpenCollection['application'];
  payment: TransactionRow;
  rail: RailRow | null;
  statusUrl: string;
  pageUrl: string;
  styleNonce: string;
}): string {
  const { m, payment } = input;
  const country = input.rail?.country ?? 'CM';
  const railName = input.rail?.name ?? payment.paymentMethod ?? '';
  return eta.render('./collect-waiting', {
    ...base(m, input.collection, input.app, input.styleNonce),
    reference: payment.reference,
    refreshWhileWaiting: true,
    title: m.waiting.title,
    amountText: formatAmount(payment.amount, payment.currency, m.intlLocale),
    phoneText: payment.payerAccount ? formatMsisdn(payment.payerAccount, country) : '',
    railName,
    continueText: m.waiting.continueTo(railName),
    ussdHint: ussdHintText(m, input.rail?.ussdHint ?? null),
    operatorUrl: payment.redirectUrl && /^https?:\/\//i.test(payment.redirectUrl) ? payment.redirectUrl : null,
    statusUrl: input.statusUrl,
    pageUrl: input.pageUrl,
  });
}

/** The end of a payment: thanks (with the collection's message) or why it failed. */
export function renderCollectResult(input: {
  m: PageMessages;
  collection: FundCollectionRow;
  app: OpenCollection['application'];
  payment: TransactionRow;
  againUrl: string | null;
  styleNonce: string;
}): string {
  const { m, payment, collection } = input;
  const common = {
    ...base(m, collection, input.app, input.styleNonce),
    reference: payment.reference,
    amountText: formatAmount(payment.amount, payment.currency, m.intlLocale),
    againUrl: input.againUrl,
  };
  if (payment.status === 'SUCCESS' || payment.status === 'REFUNDED') {
    return eta.render('./collect-result', {
      ...common,
      title: m.result.successTitle,
      tone: 'success',
      heading: m.collect.thanksHeading,
      lines: [collection.thankYouMessage ?? m.collect.thanksDefault(collection.title)],
      againText: m.collect.payAgain,
    });
  }
  return eta.render('./collect-result', {
    ...common,
    title: m.result.failedTitle,
    tone: 'error',
    heading: m.result.failedHeading,
    lines: [failureMessage(m, payment.failureCode), m.collect.nothingDebited],
    againText: m.collect.retry,
  });
}
