/**
 * Amounts and dates as the user reads them. Amounts are integers of the currency's base unit
 * (the API's); for XAF and XOF the base unit is the franc itself, which Intl already formats
 * without decimals. Dates in the browser's time zone.
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

/** A date and time, medium style. */
export function formatDateTime(iso: string | null | undefined, language: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

/** A percentage with at most one decimal. */
export function formatPercent(ratio: number, language: string): string {
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(ratio);
}

/** A plain count. */
export function formatCount(count: number, language: string): string {
  return new Intl.NumberFormat(language).format(count);
}
