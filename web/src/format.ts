/**
 * Amounts and dates as the user reads them. Amounts are integers of the currency's base unit
 * (the API's); for XAF and XOF the base unit is the franc itself, which Intl already formats
 * without decimals. The API's timestamps without zone designator are server local time: they are
 * read in the server's zone (the profile's `serverTimeZone`, through `@date-fns/tz`) and shown in
 * the browser's (on the server, the reader's one `inTimeZone` names).
 */
import { TZDateMini } from '@date-fns/tz/date/mini';
import { baseUnitDigits } from '../../src/domain/currency.ts';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * `amount` (base units) of `currency` in `language`, e.g. « 5 000 FCFA », « KES 1,500 »,
 * « GHS 12.50 »: the base unit's decimals are Kolo's (`baseUnitDigits`: KES in whole shillings).
 */
export function formatMoney(amount: number, currency: string, language: string): string {
  const key = `${language}:${currency}`;
  const digits = baseUnitDigits(currency);
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    moneyFormats.set(key, format);
  }
  return format.format(amount / 10 ** digits);
}

/** The base units of a decimal amount typed by the user in `currency` (null when unreadable). */
export function parseAmount(text: string, currency: string, language: string): number | null {
  const digits = baseUnitDigits(currency);
  const normalised = text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  // At most the base unit's decimals: `50.50` KES (whole shillings) is unreadable, never 5050.
  const decimals = digits === 0 ? '' : `(\\.\\d{1,${digits}})?`;
  if (!new RegExp(`^\\d+${decimals}$`).test(normalised)) return null;
  return Math.round(Number(normalised) * 10 ** digits);
}

/** An amount in base units as a form field shows it, readable by `parseAmount` (`12.50`, `50000`). */
export function amountFieldText(amount: number, currency: string): string {
  const digits = baseUnitDigits(currency);
  return digits === 0 ? String(amount) : (amount / 10 ** digits).toFixed(digits);
}

/**
 * The zone of the server, i.e. of the API's zone-less timestamps (the profile's
 * `serverTimeZone`); undefined until known, then such timestamps are read in the reader's zone.
 */
let serverTimeZone: string | undefined;
/** The time zone of a server render in progress (undefined: the runtime's, i.e. the browser's). */
let renderTimeZone: string | undefined;
/** A date and time without zone designator (the API's server-local timestamps), in parts. */
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/;
/** A calendar day, as date inputs give it. */
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True when `timeZone` is an IANA name this runtime knows. */
function isKnownZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Sets the server's time zone (an IANA name, the profile's `serverTimeZone`), in which the
 * API's timestamps without zone designator are read. An unknown name is ignored.
 */
export function setServerTimeZone(timeZone: string): void {
  if (isKnownZone(timeZone)) serverTimeZone = timeZone;
}

/** The reader's time zone (IANA name): the one of the server render in progress, else the browser's. */
export function readerTimeZone(): string {
  return renderTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Runs `render` (synchronous, e.g. React's renderToString) with dates shown in `timeZone` (the
 * reader's) and zone-less API timestamps read in `server` (the server's), both IANA names: the
 * server draws a page as its reader's browser would. Throws RangeError for an unknown zone.
 */
export function inTimeZone<T>(timeZone: string, server: string, render: () => T): T {
  new Intl.DateTimeFormat('en', { timeZone });
  new Intl.DateTimeFormat('en', { timeZone: server });
  const before = serverTimeZone;
  renderTimeZone = timeZone;
  serverTimeZone = server;
  try {
    return render();
  } finally {
    renderTimeZone = undefined;
    serverTimeZone = before;
  }
}

/**
 * The instant of an API timestamp: with `Z` or an offset as written; without zone designator
 * (`2026-11-20T14:03:07.123`) as wall time in the server's time zone. An invalid date when unreadable.
 */
export function apiInstant(iso: string): Date {
  const parts = LOCAL_DATE_TIME.exec(iso);
  if (!parts) return new Date(iso);
  const [, y, mo, d, h, mi, s = '0', fraction = ''] = parts;
  const ms = Number(fraction.padEnd(3, '0'));
  return new Date(+new TZDateMini(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms, serverTimeZone ?? readerTimeZone()));
}

/** `date`'s wall time in the server's zone, `AAAA-MM-JJThh:mm:ss` (what the API reads as server local time). */
function serverWallTime(date: Date): string {
  const local = new TZDateMini(+date, serverTimeZone ?? readerTimeZone());
  const p = (n: number) => String(n).padStart(2, '0');
  return `${local.getFullYear()}-${p(local.getMonth() + 1)}-${p(local.getDate())}T${p(local.getHours())}:${p(local.getMinutes())}:${p(local.getSeconds())}`;
}

/**
 * A day typed by the user (`AAAA-MM-JJ`, in the reader's zone) as a bound of the API's filters:
 * for `from` the day's first instant, for `to` the next day's (the API's `to` excludes it), as
 * server local time (`AAAA-MM-JJThh:mm:ss`), so that a day means the user's day. Any other text
 * is returned as is (the API then answers its 400).
 */
export function serverDayBound(day: string, kind: 'from' | 'to'): string {
  const parts = DAY.exec(day);
  if (!parts) return day;
  const [y, m, d] = parts.slice(1).map(Number);
  return serverWallTime(new Date(+new TZDateMini(y!, m! - 1, d! + (kind === 'to' ? 1 : 0), readerTimeZone())));
}

/** The first instant of the reader's day `days` days before today, as server local time (`AAAA-MM-JJThh:mm:ss`). */
export function serverStartOfDay(days: number): string {
  const today = new TZDateMini(Date.now(), readerTimeZone());
  return serverWallTime(new Date(+new TZDateMini(today.getFullYear(), today.getMonth(), today.getDate() - days, readerTimeZone())));
}

/** Today's date in the reader's zone, `AAAA-MM-JJ`. */
export function readerToday(): string {
  const today = new TZDateMini(Date.now(), readerTimeZone());
  const p = (n: number) => String(n).padStart(2, '0');
  return `${today.getFullYear()}-${p(today.getMonth() + 1)}-${p(today.getDate())}`;
}

/** A date and time, medium style, in the reader's zone ('—' when absent). */
export function formatDateTime(iso: string | null | undefined, language: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: renderTimeZone }).format(apiInstant(iso));
}

/** A percentage with at most one decimal. */
export function formatPercent(ratio: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

/** A plain count. */
export function formatCount(count: number, language: string): string {
  return new Intl.NumberFormat(language).format(count);
}
