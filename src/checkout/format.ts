/**
 * Display helpers of the checkout page: amounts, phone numbers and colours.
 */
import { nationalNumber } from '../domain/msisdn.ts';

const FCFA = new Set(['XAF', 'XOF']);

/** An amount in base units for display, e.g. `5 000 FCFA` for 5000 XAF (narrow no-break space kept as a plain space). */
export function formatAmount(amount: number, currency: string): string {
  const digits = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }).format(amount).replace(/\s/g, ' ');
  return `${digits} ${FCFA.has(currency) ? 'FCFA' : currency}`;
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
