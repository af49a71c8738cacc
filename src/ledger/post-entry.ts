/**
 * Posting balanced journal entries inside the caller's database transaction: `postEntries`, the
 * one implementation (`postEntry` posts a batch of one), in two round trips whatever the number
 * of entries and lines:
 * 1. one upsert of every touched account (created on first use) that adds the sum of the
 *    entries' normal-side deltas to its balance and bumps its version. Rows are locked in key
 *    order, so two concurrent postings can never deadlock on each other's accounts. The update is
 *    conditional: a non-negative account whose balance would go below zero is not updated and
 *    not returned (nor is one this very debit would create), and the posting throws
 *    `InsufficientFundsError` (the caller's transaction then rolls back; nothing written
 *    survives). The table's CHECK backs this up.
 * 2. one INSERT of the entries and all their lines (data-modifying CTEs).
 * Money rules (TigerBeetle style): integers in base units, two or more lines, Σ = 0, one
 * currency per entry; a broken rule is a programming error and throws a plain Error (a 500).
 */
import type { Db } from '../db/client.ts';
import { addToBalances, insertEntries } from '../db/queries/ledger.ts';
import { accountDelta, type AccountSpec } from './accounts.ts';

/** One line of a posting: a signed amount (debit > 0, credit < 0, never 0) on an account. */
export interface PostingLine {
  account: AccountSpec;
  amount: number;
}

/** A journal entry to post. `transactionId` + `kind` is unique: a second identical posting throws. */
export interface Posting {
  kind: string;
  transactionId: string | null;
  currency: string;
  description?: string | null;
  lines: PostingLine[];
  createdAt: Date;
}

/** Thrown when a posting would take a non-negative account (e.g. available balance) below zero. */
export class InsufficientFundsError extends Error {
  readonly accountKeys: string[];
  constructor(accountKeys: string[]) {
    super(`insufficient funds on ${accountKeys.join(', ')}`);
    this.name = 'InsufficientFundsError';
    this.accountKeys = accountKeys;
  }
}

/** Maximum lines of one entry: every posting rule of Kolo needs at most four. */
const LINES_MAX = 16;

/** Checks the entry's invariants; throws an Error (a bug in the caller) when one is broken. */
export function assertBalanced(posting: Posting): void {
  const { lines } = posting;
  if (lines.length < 2 || lines.length > LINES_MAX) throw new Error(`ledger: an entry has 2..${LINES_MAX} lines, got ${lines.length}`);
  let sum = 0n;
  for (const line of lines) {
    if (!Number.isSafeInteger(line.amount) || line.amount === 0) throw new Error(`ledger: line amount must be a non-zero integer, got ${line.amount}`);
    if (line.account.currency !== posting.currency) throw new Error(`ledger: line in ${line.account.currency} on a ${posting.currency} entry`);
    sum += BigInt(line.amount);
  }
  if (sum !== 0n) throw new Error(`ledger: entry ${posting.kind} does not balance (Σ = ${sum})`);
}

/** Posts `posting` in `tx`: `postEntries` of one. Returns the entry id. Throws InsufficientFundsError (see the file comment). */
export async function postEntry(tx: Db, posting: Posting): Promise<number> {
  const [id] = await postEntries(tx, [posting]);
  return id!;
}

/**
 * Posts `postings` in `tx` in two round trips whatever their number: one upsert of every account
 * touched by any of them, with the sum of their deltas (locked once, in key order), then one
 * INSERT of all the entries and their lines. The non-negative check applies to each account's
 * summed delta (the balance after the whole batch), so post one at a time when each posting must
 * be covered on its own (a pay-out's reservation). Returns the entries' ids, in order. Throws
 * InsufficientFundsError; nothing is written by this call then.
 */
export async function postEntries(tx: Db, postings: Posting[]): Promise<number[]> {
  if (postings.length === 0) return [];
  for (const posting of postings) assertBalanced(posting);
  const idByKey = await applyAccountDeltas(tx, postings);
  const lines = postings.flatMap((p, n) => p.lines.map((line) => ({ entry: n + 1, accountId: idByKey.get(line.account.key)!, amount: line.amount })));
  return insertEntries(tx, {
    entries: postings.map((p) => ({ kind: p.kind, transactionId: p.transactionId, currency: p.currency, description: p.description ?? null, createdAt: p.createdAt })),
    lines,
  });
}

/**
 * Round trip 1 of a posting: adds each touched account's summed normal-side delta (created on
 * first use), locking the rows in key order; returns each account's id by key. Throws
 * InsufficientFundsError when a non-negative account would go below zero (or is created by a
 * debit).
 */
async function applyAccountDeltas(tx: Db, postings: Posting[]): Promise<Map<string, number>> {
  // One delta per account, in key order (the lock order).
  const byKey = new Map<string, { spec: AccountSpec; delta: bigint }>();
  for (const posting of postings) {
    for (const line of posting.lines) {
      const current = byKey.get(line.account.key);
      const delta = accountDelta(line.account, line.amount);
      byKey.set(line.account.key, { spec: line.account, delta: (current?.delta ?? 0n) + delta });
    }
  }
  const accounts = [...byKey.values()].sort((a, b) => (a.spec.key < b.spec.key ? -1 : a.spec.key > b.spec.key ? 1 : 0));
  const updated = await addToBalances(tx, { changes: accounts.map(({ spec, delta }) => ({ account: spec, delta })), createdAt: postings[0]!.createdAt });
  const done = new Set(updated.map((r) => r.key));
  // Refused: an existing account that would go below zero (not returned), or one created by this
  // very debit (it had nothing to give).
  const refused = accounts.filter(
    ({ spec, delta }) => !done.has(spec.key) || (spec.isNonNegative && delta < 0n && updated.some((r) => r.key === spec.key && r.inserted)),
  );
  if (refused.length > 0) throw new InsufficientFundsError(refused.map((a) => a.spec.key));
  return new Map(updated.map((r) => [r.key, r.id]));
}
