/**
 * Posting balanced journal entries inside the caller's database transaction: `postEntries`, the
 * one implementation (`postEntry` posts a batch of one). No balance row is locked by a posting
 * that only adds to balances or moves money on accounts that may go negative (a pay-in's credit,
 * the rail's float, fee revenue): its balance changes are appended as delta rows, folded into the
 * stored balances later in batches (`rollUpBalances`). Round trips:
 * 1. the touched accounts' ids (created on first use; no lock), unless every one is known already
 *    (an account committed earlier keeps its id: `ensureAccounts`);
 * 2. one statement that locks the accounts the posting spends from when they must not go negative
 *    (a merchant's available balance for a pay-out, say; key order, so two postings never
 *    deadlock; held until the caller's transaction ends, so that no other spend races the
 *    check), checks their balances (stored + deltas) and inserts the entries, their lines and the
 *    deltas — or, when a spent account would go below zero, inserts nothing and the posting throws
 *    `InsufficientFundsError`. When a spent account changed while the statement waited for its
 *    lock, the statement runs once more, under that lock (`insertPosting`).
 * A debit that releases what an earlier entry of the same transaction put aside (`covered`: a
 * pay-out's reservation, a held settlement) is not checked nor locked: the transaction's own row
 * lock and the one-entry-per-kind rule keep it from being spent twice, and `kolo ledger verify`
 * checks the reservations.
 * Money rules (TigerBeetle style): integers in base units, two or more lines, Σ = 0, one
 * currency per entry; a broken rule is a programming error and throws a plain Error (a 500).
 */
import type { Db } from '../db/client.ts';
import { ensureAccounts, forgetAccounts, insertPosting, type BalanceDelta, type NewEntry, type NewLine } from '../db/queries/ledger.ts';
import { accountDelta, type AccountSpec } from './accounts.ts';

/**
 * One line of a posting: a signed amount (debit > 0, credit < 0, never 0) on an account.
 * `covered`: this line takes back money an earlier entry of the same transaction put on the
 * account (releasing a pay-out's reservation or a held settlement): not checked against the
 * balance (see the file comment).
 */
export interface PostingLine {
  account: AccountSpec;
  amount: number;
  covered?: boolean;
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
 * A batch of postings ready to write: its entries and lines by account id (`NewEntry`,
 * `NewLine`), the spends to check (a negative delta on an account that must not go below zero,
 * not covered by an earlier entry of its transaction) and the touched accounts' keys.
 */
export interface PreparedPostings {
  entries: NewEntry[];
  lines: NewLine[];
  spends: BalanceDelta[];
  accountKeys: string[];
}

/**
 * Checks `postings` (`assertBalanced`) and resolves their accounts' ids in `db`, creating the
 * missing ones (`ensureAccounts`: no round trip when every id is known). Writes no entry.
 */
export async function preparePostings(db: Db, postings: Posting[]): Promise<PreparedPostings> {
  for (const posting of postings) assertBalanced(posting);
  // One delta per account; a spend is an unchecked-for-cover negative delta on a non-negative account.
  const byKey = new Map<string, { spec: AccountSpec; delta: bigint; uncovered: bigint }>();
  for (const posting of postings) {
    for (const line of posting.lines) {
      const current = byKey.get(line.account.key) ?? { spec: line.account, delta: 0n, uncovered: 0n };
      const delta = accountDelta(line.account, line.amount);
      current.delta += delta;
      if (!line.covered) current.uncovered += delta;
      byKey.set(line.account.key, current);
    }
  }
  const accounts = [...byKey.values()].sort((a, b) => (a.spec.key < b.spec.key ? -1 : a.spec.key > b.spec.key ? 1 : 0));
  const idByKey =
    accounts.length === 0 ? new Map<string, number>() : await ensureAccounts(db, { accounts: accounts.map((a) => a.spec), createdAt: postings[0]!.createdAt });
  return {
    entries: postings.map((p) => ({ kind: p.kind, transactionId: p.transactionId, currency: p.currency, description: p.description ?? null, createdAt: p.createdAt })),
    lines: postings.flatMap((p, n) =>
      p.lines.map((line) => ({ entry: n + 1, accountId: idByKey.get(line.account.key)!, amount: line.amount, delta: accountDelta(line.account, line.amount) })),
    ),
    spends: accounts
      .filter((a) => a.spec.isNonNegative && a.uncovered < 0n && a.delta < 0n)
      .map((a) => ({ accountId: idByKey.get(a.spec.key)!, delta: a.delta })),
    accountKeys: accounts.map((a) => a.spec.key),
  };
}

/**
 * Posts `postings` in `tx` in two round trips whatever their number, one when every account is
 * known (see the file comment). The non-negative check applies to
 * each account's summed delta (the balance after the whole batch), so post one at a time when
 * each posting must be covered on its own (a pay-out's reservation). Returns the entries' ids, in
 * order. Throws InsufficientFundsError; nothing is written by this call then.
 */
export async function postEntries(tx: Db, postings: Posting[]): Promise<number[]> {
  if (postings.length === 0) return [];
  const prepared = await preparePostings(tx, postings);
  let posted: Awaited<ReturnType<typeof insertPosting>>;
  try {
    posted = await insertPosting(tx, prepared);
  } catch (error) {
    forgetAccounts(tx, prepared.accountKeys);
    throw error;
  }
  const { ids, refused } = posted;
  if (refused.length > 0) throw new InsufficientFundsError(refused);
  return ids;
}
