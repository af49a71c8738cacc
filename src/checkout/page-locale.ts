/**
 * The language of a hosted page: the payer's browser language (`Accept-Language`, q-values and
 * language ranges per RFC 9110 §12.5.4, negotiated by the `negotiator` library) among French and
 * English, and French when the browser asks for neither (or sends no header).
 */
import Negotiator from 'negotiator';
import { PAGE_MESSAGES, type PageLocale, type PageMessages } from './page-messages.ts';

/** Page languages in order of preference on a tie; the first is the default. */
const LOCALES: readonly PageLocale[] = ['fr', 'en'];

/** The page language for an `Accept-Language` header value (absent: French). */
export function pageLocale(acceptLanguage: string | undefined): PageLocale {
  const chosen = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([...LOCALES]);
  return (LOCALES as readonly string[]).includes(chosen ?? '') ? (chosen as PageLocale) : 'fr';
}

/** The catalogue of the page language a request asks for. */
export function requestMessages(request: { headers: { 'accept-language'?: string } }): PageMessages {
  return PAGE_MESSAGES[pageLocale(request.headers['accept-language'])];
}
