/**
 * Amounts and dates as the user reads them. Amounts are integers of the currency's base unit
 * (the API's); for XAF and XOF the base unit is the franc itself, which Intl already formats
 * without decimals. Dates in the browser's time zone (on the server, the one `inTimeZone` names).
 */
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** `amount` (base units) of `currency` in `language`, e.g. « 5 000 FCFA ». */
export function formatMoney(amount: number, currency: string, language: string): string {
  const key = `${language}:${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language, { style: 'currency', currency });
    moneyFormats.set(key, format);
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
  return format.format(amount / 10 ** digits);
}

/** The base units of a decimal amount typed by the user in `currency` (null when unreadable). */
export function parseAmount(text: string, currency: string, language: string): number | null {
  const digits = new Intl.NumberFormat(language, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 0;
  const normalised = text.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(normalised)) return null;
  return Math.round(Number(normalised) * 10 ** digits);
}

/** The time zone of a server render in progress (undefined: the runtime's, i.e. the browser's). */
let renderTimeZone: string | undefined;
/** A date and time without zone designator (the API's local timestamps). */
const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T[\d:.]+$/;

/**
 * Runs `render` (synchronous, e.g. React's renderToString) with dates in `timeZone`, an IANA
 * name: the server draws a page in its reader's time zone. Throws RangeError for an unknown zone.
 */
export function inTimeZone<T>(timeZone: string, render: () => T): T {
  new Intl.DateTimeFormat('en', { timeZone });
  renderTimeZone = timeZone;
  try {
    return render();
  } finally {
    renderTimeZone = undefined;
  }
}

/** A date and time, medium style. */
export function formatDateTime(iso: string | null | undefined, language: string): string {
  if (!iso) return '—';
  // A browser reads a timestamp without zone as its own local time and shows it unchanged: a
  // server render shows it unchanged too (read and shown as UTC), whatever the zone drawn in.
  if (renderTimeZone !== undefined && LOCAL_DATE_TIME.test(iso)) {
    return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(new Date(`${iso}Z`));
  }
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone: renderTimeZone }).format(new Date(iso));
}

/** A percentage with at most one decimal. */
export function formatPercent(ratio: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

/** A plain count. */
export function formatCount(count: number, language: string): string {
  return new Intl.NumberFormat(language).format(count);
}
