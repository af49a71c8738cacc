/**
 * The capability that lets a payer follow a fund collection payment (its page and its JSON
 * status) without an account: HMAC-SHA256 of the reference under the checkout's secret (domain
 * separated from the CSRF tokens), 128 bits in base64url. Whoever paid holds it; a reference
 * alone (48 random bits, shown on receipts) is not enough to read a payment.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The status token of payment `reference` under `secret` (see `checkoutCsrfSecret`). */
export function collectStatusToken(secret: string, reference: string): string {
  return createHmac('sha256', secret).update(`fund-collection-status.${reference}`).digest('base64url').slice(0, 22);
}

/** Constant-time check of a presented status token. */
export function isValidCollectStatusToken(secret: string, reference: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length !== 22) return false;
  return timingSafeEqual(Buffer.from(collectStatusToken(secret, reference)), Buffer.from(presented));
}

/** Paths of the public page for a slug, and of one payment's screen (with its token). */
export function collectPaths(slug: string) {
  const page = `/collect/${slug}`;
  return {
    page,
    pay: `${page}/pay`,
    payment: (reference: string, token: string) => `${page}/paiement/${reference}?t=${token}`,
  };
}
