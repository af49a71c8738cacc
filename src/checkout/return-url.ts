/**
 * Where the customer goes back to after the hosted page: the merchant's successUrl or cancelUrl
 * with `reference`, `merchantReference` and `status` appended as query parameters (existing
 * integrations read them on the URL they land on), keeping any query (and fragment) the URL already
 * had.
 */

/** What is appended to the return URL. `merchantReference` is omitted when the merchant gave none. */
export interface ReturnParams {
  reference: string;
  merchantReference: string | null;
  status: string;
}

/**
 * `url` with the parameters appended (replacing same-named ones), or null when `url` is absent
 * or not an absolute http(s) URL (nothing else may be sent to a browser as a redirect).
 */
export function returnUrl(url: string | null, params: ReturnParams): string | null {
  if (!url) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  parsed.searchParams.set('reference', params.reference);
  if (params.merchantReference !== null) parsed.searchParams.set('merchantReference', params.merchantReference);
  parsed.searchParams.set('status', params.status);
  return parsed.toString();
}
