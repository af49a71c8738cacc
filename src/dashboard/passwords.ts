/**
 * Password hashing with scrypt from `node:crypto` at the OWASP Password Storage Cheat Sheet
 * parameters (N=2^17, r=8, p=1; https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html).
 * Stored form: `scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt base64>$<hash base64>`, so hashes made
 * with other parameters keep verifying after the default changes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  // maxmem must exceed 128·N·r bytes or node refuses (128 MiB at N=2^17, r=8).
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r * 2 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes `password` with a fresh 16-byte salt; `logN` is log2 of scrypt's cost N. */
export async function hashPassword(password: string, logN: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, logN, R, P);
  return `scrypt$ln=${logN},r=${R},p=${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

const STORED = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/;

/** True when `password` matches `stored`; false for a null or unreadable hash. Constant-time compare. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const match = stored ? STORED.exec(stored) : null;
  if (!match) return false;
  const [, ln, r, p, salt, hash] = match;
  const expected = Buffer.from(hash!, 'base64');
  const logN = Number(ln);
  if (logN < 10 || logN > 22) return false;
  const actual = await scryptAsync(password, Buffer.from(salt!, 'base64'), logN, Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real verification, for unknown e-mails, so response times do not
 * tell which addresses have an account.
 */
export async function burnPasswordCheck(password: string, logN: number): Promise<void> {
  dummyHash ??= hashPassword('kolo-dummy-password', logN);
  await verifyPassword(password, await dummyHash);
}
