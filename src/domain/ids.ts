/**
 * Identifiers: transaction references (spec "Transaction": `PI-`/`PO-` + 12 uppercase hex, per
 * compatibility.md), checkout session tokens (`cs_` + 32 hex), API keys and row ids.
 * Randomness comes from `node:crypto`; the `Ids` interface lets tests seed it.
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** Direction of money: pay-in (checkout, charge) or pay-out (transfer). */
export type Direction = 'PAY_IN' | 'PAY_OUT';

/** Generators of identifiers. All outputs are unguessable in the default implementation. */
export interface Ids {
  uuid(): string;
  /** `PI-` or `PO-` followed by 12 uppercase hex characters (48 random bits). */
  reference(direction: Direction): string;
  /** `cs_` followed by 32 lowercase hex characters (128 random bits). */
  checkoutToken(): string;
  /** `n` random bytes as lowercase hex. */
  hex(bytes: number): string;
}

/** The production id generator. */
export const randomIds: Ids = {
  uuid: () => randomUUID(),
  reference: (direction) => `${direction === 'PAY_IN' ? 'PI' : 'PO'}-${randomBytes(6).toString('hex').toUpperCase()}`,
  checkoutToken: () => `cs_${randomBytes(16).toString('hex')}`,
  hex: (bytes) => randomBytes(bytes).toString('hex'),
};

/** A row id: a UUID in its canonical 8-4-4-4-12 hexadecimal form (RFC 9562 §4), any version. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a canonical UUID (what a `uuid` column accepts without a cast error). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Pattern of a well-formed transaction reference of either direction (`FC-`: a fund collection's pay-in). */
export const REFERENCE_PATTERN = /^(P[IO]|FC)-[0-9A-F]{12}$/;
