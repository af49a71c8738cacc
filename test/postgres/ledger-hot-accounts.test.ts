/**
 * The ledger's hot accounts under concurrent postings on PostgreSQL (this directory runs when
 * TEST_DATABASE_URL is set, as in CI): credits to one account never wait on each other's
 * balance rows, spends from an account that must not go negative never overdraw it whatever
 * the interleaving with credits and roll-ups, and every balance ends equal to its lines.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { migrateDatabase, openDatabase, rowsOf, transaction, type Database } from '../../src/db/client.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount, operatorFloatAccount, platformAccount } from '../../src/ledger/accounts.ts';
import { InsufficientFundsError, postEntry } from '../../src/ledger/post-entry.ts';
import { rollUpBalances } from '../../src/ledger/roll-up-balances.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { freshPostgresDatabase } from '../harness.ts';

const APP = '00000000-0000-4000-8000-000000000001';
let database: Database;
let drop: () => Promise<void>;
beforeAll(async () => {
  const pg = await freshPostgresDatabase(process.env.TEST_DATABASE_URL!, 'kolo_hot_accounts');
  drop = pg.drop;
  database = await openDatabase({ databaseUrl: pg.url, dataDir: 'memory://' });
  await migrateDatabase(database);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const available = merchantAccount(APP, 'LIVE', 'XAF', 'AVAILABLE');
const reserved = merchantAccount(APP, 'LIVE', 'XAF', 'RESERVED');
const float = operatorFloatAccount('MTN_CM', 'LIVE', 'XAF');
const fees = platformAccount('FEE_REVENUE', 'LIVE', 'XAF');

/** A pay-in of 1,000 with a 20 fee: float debited, merchant and fee revenue credited. */
const payIn = (n: number) =>
  transaction(database.db, (tx) =>
    postEntry(tx, {
      kind: `PAYIN_${n}`,
      transactionId: null,
      currency: 'XAF',
      createdAt: new Date(),
      lines: [
        { account: float, amount: 1000 },
        { account: available, amount: -980 },
        { account: fees, amount: -20 },
      ],
    }),
  );

/** A reservation of 700 from the available balance; false when refused. */
const reserve = async (n: number): Promise<boolean> => {
  try {
    await transaction(database.db, (tx) =>
      postEntry(tx, {
        kind: `RESERVE_${n}`,
        transactionId: null,
        currency: 'XAF',
        createdAt: new Date(),
        lines: [
          { account: available, amount: 700 },
          { account: reserved, amount: -700 },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof InsufficientFundsError) return false;
    throw error;
  }
};

it('a transaction holding a pay-in open does not hold back other pay-ins on the same accounts', async () => {
  await payIn(0);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let posted!: () => void;
  const isPosted = new Promise<void>((resolve) => (posted = resolve));
  const slow = transaction(database.db, async (tx) => {
    await postEntry(tx, {
      kind: 'PAYIN_SLOW',
      transactionId: null,
      currency: 'XAF',
      createdAt: new Date(),
      lines: [
        { account: float, amount: 1000 },
        { account: available, amount: -980 },
        { account: fees, amount: -20 },
      ],
    });
    posted();
    await released;
  });
  await isPosted;
  // With the slow transaction still open, ten more pay-ins on the same three accounts commit.
  const others = Promise.all(Array.from({ length: 10 }, (_, n) => payIn(100 + n)));
  const outcome = await Promise.race([others.then(() => 'committed'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 5000))]);
  release();
  await slow;
  await others;
  expect(outcome).toBe('committed');
  expect(await accountBalance(database.db, available.key)).toBe(12 * 980);
});

it('concurrent spends, credits and roll-ups never overdraw, and every balance equals its lines', async () => {
  const before = await accountBalance(database.db, available.key);
  // 60 reservations of 700 race 30 pay-ins of 980 net and roll-ups: the available balance never
  // goes below zero, and exactly the reservations it could cover are accepted.
  const work: Promise<unknown>[] = [];
  const accepted: boolean[] = [];
  for (let n = 0; n < 60; n++) work.push(reserve(n).then((ok) => accepted.push(ok)));
  for (let n = 0; n < 30; n++) work.push(payIn(1000 + n));
  for (let n = 0; n < 5; n++) work.push(rollUpBalances(database.db));
  await Promise.all(work);
  const taken = accepted.filter(Boolean).length * 700;
  const after = await accountBalance(database.db, available.key);
  expect(after).toBe(before + 30 * 980 - taken);
  expect(after).toBeGreaterThanOrEqual(0);
  // No reservation is refused while the opening balance alone could still cover it.
  expect(accepted.filter(Boolean).length).toBeGreaterThanOrEqual(Math.floor(before / 700));
  expect(await accountBalance(database.db, reserved.key)).toBe(taken);
  await rollUpBalances(database.db);
  const [left] = rowsOf<{ n: string | number }>(await database.db.execute(sql`select count(*) as n from ledger_balance_deltas`));
  expect(Number(left!.n)).toBe(0);
  expect(await accountBalance(database.db, available.key)).toBe(after);
  const report = await verifyLedger(database.db);
  expect(report.discrepancies).toEqual([]);
});

it('a spend that waited for another spend’s lock sees that spend once it commits', async () => {
  // Bring the available balance to exactly one reservation of 700 (the roll-up leaves no delta).
  await rollUpBalances(database.db);
  const start = await accountBalance(database.db, available.key);
  if (start > 700) {
    const spare = start - 700;
    await transaction(database.db, (tx) =>
      postEntry(tx, { kind: 'TO_ONE_RESERVATION', transactionId: null, currency: 'XAF', createdAt: new Date(), lines: [{ account: available, amount: spare }, { account: reserved, amount: -spare }] }),
    );
  }
  expect(await accountBalance(database.db, available.key)).toBe(700);
  // The first reservation is written and holds its lock in a transaction left open; the second,
  // started meanwhile, waits for that lock with a snapshot that cannot show the first's delta.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => (held = resolve));
  const first = transaction(database.db, async (tx) => {
    await postEntry(tx, { kind: 'HELD_RESERVE', transactionId: null, currency: 'XAF', createdAt: new Date(), lines: [{ account: available, amount: 700 }, { account: reserved, amount: -700 }] });
    held();
    await released;
  });
  await isHeld;
  const second = reserve(9_999);
  const waiting = await Promise.race([second.then(() => 'done'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 300))]);
  release();
  await first;
  expect(waiting).toBe('waiting');
  expect(await second).toBe(false);
  expect(await accountBalance(database.db, available.key)).toBe(0);
  expect((await verifyLedger(database.db)).discrepancies).toEqual([]);
});
