/**
 * Identifiers: transaction references (`PI-` for pay-ins, `PO-` for pay-outs, + 12 uppercase hex,
 * the form existing integrations validate), checkout session tokens (`cs_` + 32 hex), API keys and
 * row ids. Randomness comes from `node:crypto`; the `Ids` interface lets tests seed it.
 */
import { randomFillSync, randomUUID } from 'node:crypto';

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

// Random bytes are drawn from a pool filled 4 KiB at a time by the operating system's CSPRNG
// (`randomFillSync`), the way Node's own `randomUUID` caches its entropy, rather than a
// `randomBytes` call per identifier. Each byte is handed out once and zeroed as it is taken.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** `bytes` fresh random bytes from the pool, as lowercase hex. */
function randomHex(bytes: number): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (poolOffset + bytes > pool.length) {
    pool = randomFillSync(Buffer.alloc(POOL_BYTES));
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  pool.fill(0, poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** The production id generator. */
export const randomIds: Ids = {
  uuid: () => randomUUID(),
  reference: (direction) => `${direction === 'PAY_IN' ? 'PI' : 'PO'}-${randomHex(6).toUpperCase()}`,
  checkoutToken: () => `cs_${randomHex(16)}`,
  hex: (bytes) => randomHex(bytes),
};

/** A row id: a UUID in its canonical 8-4-4-4-12 hexadecimal form (RFC 9562 §4), any version. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a canonical UUID (what a `uuid` column accepts without a cast error). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** Pattern of a well-formed transaction reference of either direction (`FC-`: a fund collection's pay-in). */
export const REFERENCE_PATTERN = /^(P[IO]|FC)-[0-9A-F]{12}$/;
