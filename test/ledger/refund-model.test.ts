/**
 * A model test of refunds: random sequences of refund requests (a part, or "the rest"), refund
 * outcomes (paid, declined, failed at the deadline with the reservation held), the operator's late
 * answer about a held refund (paid, or not) and a late success of another charge (kept or
 * refunded) — in any order — against a model of what may remain refundable. After every step:
 * a refund is accepted exactly when the model says it fits, the pay-in's `refundedAmount` is the
 * sum of the refunds paid (on time or late), it is REFUNDED exactly when that reaches its amount,
 * the refunds that may still pay never exceed it, the merchant's reserved balance is what the
 * open and held refunds reserve, and every ledger balance equals its journal.
 */
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { applications, transactions } from '../../src/db/schema.ts';
import { transaction } from '../../src/db/client.ts';
import { applyTransition } from '../../src/payments/apply-transition.ts';
import { recordLateSuccess, settleHeldPayOut } from '../../src/late-success/index.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import { PATHS } from '../helpers/merchant-api.ts';
import { chargeTo, transactionRow } from '../helpers/webhooks.ts';
import { tenantBalances } from '../helpers/ledger.ts';

const AMOUNT = 5000;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** What the model knows of a refund: its amount and where its money is. */
type ModelRefund = { reference: string; amount: number; state: 'PENDING' | 'PAID' | 'RELEASED' | 'HELD' | 'PAID_LATE' };

type Step =
  | { kind: 'refund'; amount: number | undefined }
  | { kind: 'resolve'; index: number; outcome: 'MONEY_MOVED' | 'DECLINED' | 'TIMED_OUT' }
  | { kind: 'late'; index: number; paid: boolean }
  | { kind: 'lateSuccess'; keep: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('refund' as const), amount: fc.option(fc.integer({ min: 1, max: 6000 }), { nil: undefined }) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('resolve' as const), index: fc.nat(5), outcome: fc.constantFrom('MONEY_MOVED' as const, 'DECLINED' as const, 'TIMED_OUT' as const) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('late' as const), index: fc.nat(5), paid: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lateSuccess' as const), keep: fc.boolean() }) },
);

/** Sequences that must be among the runs: a refund held, then paid late, then "the rest". */
const EXAMPLES: [Step[]][] = [
  [
    [
      { kind: 'refund', amount: 3000 },
      { kind: 'resolve', index: 0, outcome: 'TIMED_OUT' },
      { kind: 'late', index: 0, paid: true },
      { kind: 'refund', amount: 2500 },
      { kind: 'refund', amount: undefined },
      { kind: 'resolve', index: 0, outcome: 'MONEY_MOVED' },
    ],
  ],
];

const committed = (refunds: ModelRefund[]) => refunds.filter((r) => r.state !== 'RELEASED').reduce((sum, r) => sum + r.amount, 0);
const paid = (refunds: ModelRefund[]) => refunds.filter((r) => r.state === 'PAID' || r.state === 'PAID_LATE').reduce((sum, r) => sum + r.amount, 0);

/** A charge of `t` failed at its deadline (the operator never answered), never polled. */
async function chargeFailedAtDeadline(t: Tenant): Promise<string> {
  const created = await h.request('POST', PATHS.charge, {
    key: t.key,
    body: { amount: 3000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' },
  });
  const row = await transactionRow(h, created.json.data.reference);
  await applyTransition(h.services, { transactionId: row.id, event: 'TIMED_OUT', cause: 'DEADLINE', failureCode: 'TIMEOUT' });
  return row.id;
}

async function run(steps: Step[]): Promise<void> {
  const t = await h.createTenant();
  const payment = await chargeTo(h, t, 'SUCCESS');
  const late = await chargeFailedAtDeadline(t);
  const refunds: ModelRefund[] = [];
  let lateRecorded = false;
  for (const s of steps) {
    if (s.kind === 'refund') {
      const remaining = AMOUNT - committed(refunds);
      const isPaidInFull = paid(refunds) >= AMOUNT;
      const fits = !isPaidInFull && remaining >= 1 && (s.amount ?? remaining) <= remaining;
      const answer = await h.request('POST', PATHS.refund, { key: t.key, body: { reference: payment, ...(s.amount ? { amount: s.amount } : {}) } });
      expect(answer.status, answer.text).toBe(fits ? 201 : 400);
      if (fits) refunds.push({ reference: answer.json.data.reference, amount: s.amount ?? remaining, state: 'PENDING' });
      else expect(answer.json.code).toBe(isPaidInFull ? 'REFUND_NOT_ALLOWED' : 'REFUND_AMOUNT_EXCEEDED');
    } else if (s.kind === 'resolve') {
      const open = refunds.filter((r) => r.state === 'PENDING');
      const refund = open[s.index % Math.max(open.length, 1)];
      if (!refund) continue;
      const row = await transactionRow(h, refund.reference);
      const failure = s.outcome === 'MONEY_MOVED' ? {} : { failureCode: s.outcome === 'DECLINED' ? ('PAYEE_NOT_FOUND' as const) : ('TIMEOUT' as const) };
      expect(await applyTransition(h.services, { transactionId: row.id, event: s.outcome, cause: 'MODEL', ...failure })).not.toBeNull();
      refund.state = s.outcome === 'MONEY_MOVED' ? 'PAID' : s.outcome === 'DECLINED' ? 'RELEASED' : 'HELD';
    } else if (s.kind === 'late') {
      const held = refunds.filter((r) => r.state === 'HELD');
      const refund = held[s.index % Math.max(held.length, 1)];
      if (!refund) continue;
      const row = await transactionRow(h, refund.reference);
      const answer = s.paid
        ? { paid: true as const, operatorReference: null, operatorTransactionId: `OP-${refund.reference}`, origin: 'MODEL' }
        : { paid: false as const, failureCode: 'NOT_FOUND_AT_PROVIDER', failureReason: 'inconnu', origin: 'MODEL' };
      expect(await transaction(h.services.db, (tx) => settleHeldPayOut(tx, h.services, row.id, answer))).toBe(true);
      refund.state = s.paid ? 'PAID_LATE' : 'RELEASED';
    } else {
      await h.services.db.update(applications).set({ lateSuccessPolicy: s.keep ? 'KEEP' : 'REFUND' }).where(eq(applications.id, t.applicationId));
      const decision = await transaction(h.services.db, (tx) =>
        recordLateSuccess(tx, h.services, late, { railCode: 'MTN_MOMO_CM', msisdn: '237677000001', operatorReference: null, origin: 'MODEL' }),
      );
      expect(decision).toBe(lateRecorded ? null : s.keep ? 'KEEP' : 'REFUND');
      lateRecorded = true;
    }

    const row = await transactionRow(h, payment);
    expect(row.refundedAmount).toBe(paid(refunds));
    expect(row.status).toBe(paid(refunds) === AMOUNT ? 'REFUNDED' : 'SUCCESS');
    expect(committed(refunds)).toBeLessThanOrEqual(AMOUNT);
    const open = refunds.filter((r) => r.state === 'PENDING' || r.state === 'HELD').reduce((sum, r) => sum + r.amount, 0);
    expect((await tenantBalances(h, t)).reserved).toBe(open); // the rail's pay-out fee is 0 here
    expect(await verifyLedger(h.services.db)).toMatchObject({ ok: true });
  }
  // The database agrees with the model on every refund.
  const rows = await h.services.db.select().from(transactions).where(eq(transactions.refundOf, (await transactionRow(h, payment)).id));
  expect(rows.reduce((sum, r) => sum + r.amount, 0)).toBe(refunds.reduce((sum, r) => sum + r.amount, 0));
}

describe('refunds, late refunds and late successes in any order', () => {
  it('never refund a pay-in beyond its amount and keep every balance equal to the journal', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => run(steps)),
      { numRuns: 30, endOnFailure: true, examples: EXAMPLES },
    );
  }, 180_000);
});
