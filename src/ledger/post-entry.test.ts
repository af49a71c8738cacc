/**
 * The double-entry core against a model (fast-check), on a real database (PGlite in memory, or
 * PostgreSQL with TEST_DATABASE_URL): random sequences of balanced entries over a few accounts,
 * some never negative, posted one by one (`postEntry`) and in batches (`postEntries`). After
 * every entry or batch the balances equal the model's, an entry or batch is refused exactly
 * when the model says a never-negative account would go below zero (and then leaves nothing
 * behind), each posted entry holds its own lines, and `verifyLedger` passes. The balance deltas
 * are rolled up into the stored balances after every other entry, so both the stored balance and
 * stored + pending deltas are judged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountBalance } from './balances.ts';
import { InsufficientFundsError, assertBalanced, postEntries, postEntry } from './post-entry.ts';
import type { AccountSpec } from './accounts.ts';
import { verifyLedger } from './verify-ledger.ts';
import { rollUpBalances } from './roll-up-balances.ts';
import { type Db, transaction } from '../db/client.ts';
import { runStatement, statement } from '../db/statement.ts';
import { useTestDatabase } from '../../test/helpers/test-database.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const testDatabase = useTestDatabase('kolo_ledger');

const account = (run: number, i: number): AccountSpec => ({
  key: `test:${run}:${i}`,
  kind: i < 3 ? 'AVAILABLE' : 'OPERATOR_FLOAT',
  currency: 'XAF',
  // Accounts 0–2 behave like merchant accounts (credit-normal, never negative); 3–4 like a float.
  normalSide: i < 3 ? 'CREDIT' : 'DEBIT',
  isNonNegative: i < 3,
});

/** An entry: 2–4 distinct accounts with amounts; the last line balances the others. */
const entry = fc
  .uniqueArray(fc.integer({ min: 0, max: 4 }), { minLength: 2, maxLength: 4 })
  .chain((accounts) =>
    fc.tuple(fc.constant(accounts), fc.array(fc.integer({ min: -5000, max: 5000 }).filter((n) => n !== 0), { minLength: accounts.length - 1, maxLength: accounts.length - 1 })),
  )
  .filter(([, amounts]) => amounts.reduce((s, a) => s + a, 0) !== 0);

describe('postEntry against a model', () => {
  let run = 0;
  it('keeps balances exact, refuses exactly the overdrafts, and always verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 12 }), async (entries) => {
        run += 1;
        const model = [0, 0, 0, 0, 0];
        for (const [n, [accounts, amounts]] of entries.entries()) {
          if (n % 2 === 1) await rollUpBalances(testDatabase().db);
          const last = -amounts.reduce((s, a) => s + a, 0);
          const lines = accounts.map((i, n) => ({ account: account(run, i), amount: n < amounts.length ? amounts[n]! : last }));
          const next = [...model];
          for (const line of lines) {
            const i = Number(line.account.key.split(':')[2]);
            next[i]! += line.account.normalSide === 'DEBIT' ? line.amount : -line.amount;
          }
          const shouldRefuse = next.some((b, i) => i < 3 && b < 0);
          let refused = false;
          try {
            await transaction(testDatabase().db, (tx) => postEntry(tx, { kind: 'TEST', transactionId: null, currency: 'XAF', lines, createdAt: new Date() }));
          } catch (error) {
            if (!(error instanceof InsufficientFundsError)) throw error;
            refused = true;
          }
          expect(refused).toBe(shouldRefuse);
          if (!refused) model.splice(0, 5, ...next);
          for (let i = 0; i < 5; i++) expect(await accountBalance(testDatabase().db, account(run, i).key)).toBe(model[i]);
        }
        const report = await verifyLedger(testDatabase().db);
        expect(report.discrepancies).toEqual([]);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 11) },
    );
  });

  it('refuses an unbalanced, one-line, zero or mixed-currency entry before touching the database', () => {
    const a = account(0, 3);
    const b = account(0, 4);
    const base = { kind: 'TEST', transactionId: null, currency: 'XAF', createdAt: new Date() };
    expect(() => assertBalanced({ ...base, lines: [{ account: a, amount: 5 }, { account: b, amount: -4 }] })).toThrow(/does not balance/);
    expect(() => assertBalanced({ ...base, lines: [{ account: a, amount: 5 }] })).toThrow(/2\.\.16 lines/);
    expect(() => assertBalanced({ ...base, lines: [{ account: a, amount: 0 }, { account: b, amount: 0 }] })).toThrow(/non-zero integer/);
    expect(() => assertBalanced({ ...base, lines: [{ account: a, amount: 1.5 }, { account: b, amount: -1.5 }] })).toThrow(/non-zero integer/);
    expect(() => assertBalanced({ ...base, lines: [{ account: { ...a, currency: 'XOF' }, amount: 5 }, { account: b, amount: -5 }] })).toThrow(/XOF/);
  });
});

describe('postEntries against a model', () => {
  let run = 1000;
  it('posts each batch whole with each entry its own lines, refuses exactly the batches that overdraw, and always verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(entry, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }), async (batches) => {
        run += 1;
        const db = testDatabase().db;
        const model = [0, 0, 0, 0, 0];
        for (const [b, batch] of batches.entries()) {
          if (b % 2 === 1) await rollUpBalances(db);
          const postings = batch.map(([accounts, amounts], n) => {
            const last = -amounts.reduce((s, a) => s + a, 0);
            const lines = accounts.map((i, k) => ({ account: account(run, i), amount: k < amounts.length ? amounts[k]! : last }));
            return { kind: `TEST_${n}`, transactionId: null, currency: 'XAF', lines, createdAt: new Date() };
          });
          // The batch is judged on each account's balance after all of its entries.
          const next = [...model];
          for (const line of postings.flatMap((p) => p.lines)) {
            const i = Number(line.account.key.split(':')[2]);
            next[i]! += line.account.normalSide === 'DEBIT' ? line.amount : -line.amount;
          }
          const shouldRefuse = next.some((b, i) => i < 3 && b < 0);
          let ids: number[] = [];
          try {
            ids = await transaction(db, (tx) => postEntries(tx, postings));
          } catch (error) {
            if (!(error instanceof InsufficientFundsError)) throw error;
            ids = [];
          }
          expect(ids.length === 0).toBe(shouldRefuse);
          if (!shouldRefuse) {
            model.splice(0, 5, ...next);
            // One distinct entry per posting, in order, holding exactly that posting's lines.
            expect(new Set(ids).size).toBe(postings.length);
            const { rows } = await runStatement<{ entry_id: string | number; kind: string; key: string; amount: string | number }>(db, linesOfEntries, [ids]);
            for (const [n, id] of ids.entries()) {
              const stored = rows.filter((r) => Number(r.entry_id) === id);
              expect(stored.every((r) => r.kind === postings[n]!.kind)).toBe(true);
              expect(stored.map((r) => [r.key, Number(r.amount)]).sort()).toEqual(postings[n]!.lines.map((l) => [l.account.key, l.amount]).sort());
            }
          }
          for (let i = 0; i < 5; i++) expect(await accountBalance(db, account(run, i).key)).toBe(model[i]);
        }
        const report = await verifyLedger(db);
        expect(report.discrepancies).toEqual([]);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 11) },
    );
  });

  it('answers an empty batch with no entry and no round trip', async () => {
    expect(await postEntries(testDatabase().db, [])).toEqual([]);
  });
});

// The lines of some entries, with their entry's kind and their account's key.
const linesOfEntries = statement(
  'test_lines_of_entries_v1',
  `select l.entry_id, e.kind, a.key, l.amount from ledger_lines l
     join ledger_entries e on e.id = l.entry_id join ledger_accounts a on a.id = l.account_id
    where l.entry_id = any($1::bigint[])`,
);

describe('accounts created by a posting that is rolled back', () => {
  const spec = (key: string, isNonNegative: boolean): AccountSpec => ({ key, kind: isNonNegative ? 'AVAILABLE' : 'OPERATOR_FLOAT', currency: 'XAF', normalSide: isNonNegative ? 'CREDIT' : 'DEBIT', isNonNegative });
  const credit = (merchant: AccountSpec, float: AccountSpec, amount: number, kind: string) => ({
    kind,
    transactionId: null,
    currency: 'XAF',
    lines: [
      { account: float, amount },
      { account: merchant, amount: -amount },
    ],
    createdAt: new Date(),
  });

  it('are created again by the next posting, whether the transaction or only a savepoint was rolled back', async () => {
    const { db } = testDatabase();
    const float = spec('test:rollback:float', false);
    for (const [n, nested] of [false, true].entries()) {
      const merchant = spec(`test:rollback:merchant:${n}`, true);
      await expect(
        transaction(db, async (tx) => {
          if (nested) {
            await transaction(tx, async (sp) => {
              await postEntry(sp, credit(merchant, float, 700, `ROLLED_BACK_${n}`));
              throw new Error('savepoint refused');
            }).catch(() => {});
            // The account created in the rolled-back savepoint is gone; a posting still in this transaction recreates it.
            await postEntry(tx, credit(merchant, float, 300, `KEPT_IN_TRANSACTION_${n}`));
            expect(await accountBalance(tx, merchant.key)).toBe(300);
          } else {
            await postEntry(tx, credit(merchant, float, 700, `ROLLED_BACK_${n}`));
          }
          throw new Error('transaction refused');
        }),
      ).rejects.toThrow('transaction refused');
      // Both accounts asked again: the merchant's is created anew, the float's was there.
      await postEntry(db, credit(merchant, float, 500, `KEPT_${n}`));
      expect(await accountBalance(db, merchant.key)).toBe(500);
      // A spend from it, known now, is still checked against its balance.
      await expect(postEntry(db, credit(merchant, float, -501, `OVERDRAWN_${n}`))).rejects.toBeInstanceOf(InsufficientFundsError);
      await postEntry(db, credit(merchant, float, -500, `SPENT_${n}`));
      expect(await accountBalance(db, merchant.key)).toBe(0);
    }
    expect((await verifyLedger(db)).discrepancies).toEqual([]);
  });
});
