/**
 * Display helpers of the checkout page: amounts, phone numbers and colours.
 */
import { baseUnitDigits } from '../domain/currency.ts';
import { nationalNumber } from '../domain/msisdn.ts';

/** XAF and XOF are both written "FCFA" where they are used (ICU writes XOF "F CFA"). */
const FCFA = new Set(['XAF', 'XOF']);

/**
 * An amount in base units for display in `intlLocale`, e.g. `5 000 FCFA` (fr-FR) or `FCFA 5,000`
 * (en-GB) for 5000 XAF, `1 500 KES` / `KES 1,500` for 1500 KES (counted in shillings), `12,50 GHS`
 * for 1250 GHS. The decimals are the base unit's (`baseUnitDigits`). Narrow and no-break spaces
 * are written as plain spaces.
 */
export function formatAmount(amount: number, currency: string, intlLocale: string): string {
  const digits = baseUnitDigits(currency);
  const format = new Intl.NumberFormat(intlLocale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
  return format
    .formatToParts(amount / 10 ** digits)
    .map((part) => (part.type === 'currency' && FCFA.has(currency) ? 'FCFA' : part.value))
    .join('')
    .replace(/\s/g, ' ');
}

/**
 * An amount typed by a payer, in the currency's major units, as base units: `5 000` or `5.000`
 * XAF → 5000 (no decimals: a `.` may only group thousands, `50.5` is INVALID); `12`, `12.5` or `12,50` GHS → 1200, 1250,
 * 1250 (at most the base unit's decimals, `.` or `,`). Spaces are ignored. `EMPTY` for nothing
 * typed; `INVALID` for anything else, and for less than one base unit or more than 12 digits.
 */
export function parseAmountInput(text: string, currency: string): number | 'EMPTY' | 'INVALID' {
  const digits = baseUnitDigits(currency);
  let compact = text.replace(/\s/g, '');
  if (compact === '') return 'EMPTY';
  // Without decimals, a `.` may only group thousands (`5.000`): `50.5` is refused, never read as 505.
  if (digits === 0 && /^[0-9]{1,3}(\.[0-9]{3})+$/.test(compact)) compact = compact.replace(/\./g, '');
  const match = digits === 0 ? /^([0-9]{1,12})$/.exec(compact) : new RegExp(`^([0-9]{1,12})(?:[.,]([0-9]{1,${digits}}))?$`).exec(compact);
  if (!match) return 'INVALID';
  const amount = Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || '0');
  return amount >= 1 ? amount : 'INVALID';
}

/** Base units as a payer types the amount: `5000` XAF → `5000`, `1250` GHS → `12.50`. */
export function amountInputText(amount: number, currency: string): string {
  const digits = baseUnitDigits(currency);
  if (digits === 0) return String(amount);
  return `${Math.floor(amount / 10 ** digits)}.${String(amount % 10 ** digits).padStart(digits, '0')}`;
}

/** The currency as `formatAmount` writes it (`FCFA` for XAF and XOF, else the locale's symbol). */
export function currencySymbol(currency: string, intlLocale: string): string {
  if (FCFA.has(currency)) return 'FCFA';
  return new Intl.NumberFormat(intlLocale, { style: 'currency', currency }).formatToParts(0).find((part) => part.type === 'currency')?.value ?? currency;
}

/** A normalised MSISDN for reading: `+237 677 00 01 01`-like groups of the national number. */
export function formatMsisdn(msisdn: string, country: string): string {
  const national = nationalNumber(msisdn, country);
  const cc = msisdn.slice(0, msisdn.length - national.length);
  const head = national.length % 2 === 1 ? national.slice(0, 3) : national.slice(0, 2);
  const rest = national.slice(head.length).match(/.{1,2}/g) ?? [];
  return `+${cc} ${[head, ...rest].join(' ')}`;
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The application's theme colour when it is a valid `#rrggbb`, else null. */
export function themeColour(value: string | null): string | null {
  return value && HEX_COLOUR.test(value) ? value.toLowerCase() : null;
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}

/**
 * Button colours for a theme colour: the colour itself with white or near-black text, whichever
 * contrasts more; when neither reaches WCAG AA (4.5:1), the default brand colour is used.
 */
export function brandColours(theme: string | null): { background: string; text: string } {
  const fallback = { background: '#0b5cad', text: '#ffffff' };
  if (!theme) return fallback;
  const white = contrastRatio(theme, '#ffffff');
  const dark = contrastRatio(theme, '#111111');
  if (Math.max(white, dark) < 4.5) return fallback;
  return { background: theme, text: white >= dark ? '#ffffff' : '#111111' };
}
