/**
 * Configuration-time check of a webhook URL, against server-side request forgery: absolute http(s),
 * at most 500 characters (the limit SharePay's clients expect), and, unless the operator allows
 * private hosts (`WEBHOOK_ALLOW_PRIVATE_HOSTS=true`), a host whose every resolved address is public
 * unicast. The same rule as the connect-time check of `request-filtering-agent` (both use ipaddr.js
 * ranges: anything but `unicast` is refused: loopback, private, link-local, metadata
 * 169.254.169.254, unspecified, carrier-grade NAT, unique local…, and the IPv6 forms that embed an
 * IPv4: IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (RFC 6052), 6to4
 * `2002::/16`, Teredo), plus the one embedding range ipaddr.js calls unicast: the deprecated
 * IPv4-compatible `::/96` (RFC 4291 §2.5.5.1, e.g. `[::7f00:1]` = 127.0.0.1), refused by
 * `DENIED_UNICAST_CIDRS` in both checks. The connect-time check still runs on every attempt,
 * because DNS answers can change after configuration.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { validationError } from '../domain/errors.ts';

/** Longest accepted webhook URL. */
export const WEBHOOK_URL_MAX = 500;
const DNS_TIMEOUT_MS = 5_000;

/**
 * Ranges that ipaddr.js classifies as `unicast` but that must be refused all the same: IPv6
 * addresses that embed an IPv4 address (IPv4-compatible, RFC 4291 §2.5.5.1). Shared with the
 * connect-time filter (`http-sender.ts`, `denyIPAddressList`).
 */
export const DENIED_UNICAST_CIDRS: readonly string[] = ['::/96'];
const deniedRanges = DENIED_UNICAST_CIDRS.map((cidr) => ipaddr.parseCIDR(cidr));

/** True when `address` (an IP literal) is public unicast and embeds no IPv4 address. */
export function isPublicAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address);
    if (parsed.range() !== 'unicast') return false;
    return !deniedRanges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  } catch {
    return false;
  }
}

/**
 * Validates and returns the trimmed URL. Throws VALIDATION_ERROR on `field` with a French
 * message naming the fix when it is blank, too long, not http(s), unresolvable, or (unless
 * `allowPrivateHosts`) resolves to a non-public address.
 */
export async function checkWebhookUrl(raw: string, options: { allowPrivateHosts: boolean; field?: string }): Promise<string> {
  const field = options.field ?? 'webhookUrl';
  const url = raw.trim();
  if (url.length === 0) throw validationError({ [field]: 'ne doit pas être vide' });
  if (url.length > WEBHOOK_URL_MAX) throw validationError({ [field]: `la taille doit être comprise entre 1 et ${WEBHOOK_URL_MAX}` });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError({ [field]: 'doit être une URL http(s) absolue' });
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
    throw validationError({ [field]: 'doit être une URL http(s) absolue' });
  }
  if (parsed.username || parsed.password) throw validationError({ [field]: "ne doit pas contenir d'identifiants" });
  if (options.allowPrivateHosts) return url;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host)
      ? [host]
      : (
          await Promise.race([
            lookup(host, { all: true, verbatim: true }),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error('dns timeout')), DNS_TIMEOUT_MS).unref()),
          ])
        ).map((a) => a.address);
  } catch {
    throw validationError({ [field]: "le nom d'hôte ne peut pas être résolu" });
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
    throw validationError({
      [field]: "doit pointer vers une adresse publique (les adresses locales, privées ou de métadonnées sont refusées)",
    });
  }
  return url;
}
