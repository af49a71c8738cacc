/**
 * Helpers of the hosted checkout tests: create a checkout through the merchant API, and a tiny
 * cookie-keeping form client that reads the page's CSRF field like a browser without script.
 */
import type { Harness, Tenant } from '../harness.ts';

/** A created checkout: its reference, paymentUrl and the page's path. */
export interface CreatedCheckout {
  reference: string;
  paymentUrl: string;
  token: string;
  path: string;
}

/** Creates a checkout (`POST /api/v1/pay-in/checkout`) for `tenant`; `body` overrides the defaults (5000 XAF). */
export async function createCheckout(h: Harness, tenant: Tenant, body: Record<string, unknown> = {}): Promise<CreatedCheckout> {
  const response = await h.request('POST', '/api/v1/pay-in/checkout', {
    key: tenant.key,
    body: { amount: 5000, currency: 'XAF', merchantReference: 'ORDER-42', description: 'Commande 42', ...body },
  });
  if (response.status !== 201) throw new Error(`checkout creation failed: ${response.status} ${response.text}`);
  const paymentUrl: string = response.json.data.paymentUrl;
  const path = new URL(paymentUrl).pathname;
  return { reference: response.json.data.reference, paymentUrl, token: path.split('/').pop()!, path };
}

/** A page as a form client sees it. */
export interface FormPage {
  status: number;
  html: string;
  headers: Headers;
  /** The hidden `_csrf` field of the page's first form, when there is one. */
  csrf: string | null;
}

/**
 * A client that keeps the checkout cookie between requests, as a browser would; `acceptLanguage`
 * is sent as its browser language (else fetch's own `*`).
 */
export function formClient(h: Harness, options: { ip?: string; acceptLanguage?: string } = {}) {
  let cookie = '';
  const remember = (headers: Headers) => {
    const set = headers.get('set-cookie');
    if (set) cookie = set.split(';')[0]!;
  };
  const headers = (): Record<string, string> => ({
    ...(cookie ? { cookie } : {}),
    ...(options.acceptLanguage ? { 'accept-language': options.acceptLanguage } : {}),
  });
  return {
    get cookie() {
      return cookie;
    },
    async get(path: string): Promise<FormPage> {
      const response = await fetch(`${h.baseUrl}${path}`, { headers: headers(), redirect: 'manual' });
      remember(response.headers);
      const html = await response.text();
      const match = /name="_csrf" value="([^"]+)"/.exec(html);
      return { status: response.status, html, headers: response.headers, csrf: match ? match[1]! : null };
    },
    async post(path: string, fields: Record<string, string>): Promise<{ status: number; location: string | null; html: string }> {
      const response = await fetch(`${h.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
      remember(response.headers);
      return { status: response.status, location: response.headers.get('location'), html: await response.text() };
    },
  };
}
