/**
 * Reconciliation of MTN_MOMO_CM with LIVE keys against the MTN simulator, from the partner
 * portal's statement export (CSV) that the simulator writes from what it did: no file → 400
 * STATEMENT_FILE_REQUIRED (MTN has no transaction list by API); a malformed file → 400
 * STATEMENT_FILE_INVALID naming the line (an unknown layout: listing the missing columns), and
 * nothing imported (no run, no case); the clean export opens nothing; each planted discrepancy
 * opens exactly one case of its kind; a second import opens nothing; a recorded reversal posts it back from the merchant and the ledger stays
 * verified.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount } from '../../src/ledger/accounts.ts';
import type { Harness, Tenant } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { mtnEnv, rowOf, settled } from '../helpers/live.ts';
import { ledgerDiscrepancies, reconciliationStaff, tellMerchants } from '../helpers/reconciliation.ts';

let sim: MtnSimulator;
let h: Harness;
let t: Tenant;
let staff: Awaited<ReturnType<typeof reconciliationStaff>>;

const live = useLiveOperator({
  startSimulator: () => startMtnSimulator({ decisionDelayMs: 30 }),
  env: (s: MtnSimulator) => ({ ...mtnEnv(s), ...DASHBOARD_TEST_ENV }),
  ready: (l) => {
    l.sim.options.nowMs = () => l.h.clock.now().getTime();
  },
});
beforeAll(async () => {
  ({ sim, h, t } = live);
  staff = await reconciliationStaff(h);
});

const RAIL = 'MTN_MOMO_CM';
const refs = {} as Record<'a' | 'b' | 'c' | 'd', string>;
let from: Date;

async function settle(reference: string) {
  await live.pollAfter(10_000);
  expect((await settled(h, reference)).status).toBe('SUCCESS');
}

describe('MTN reconciliation from the statement export (LIVE, simulator)', () => {
  it('needs a file; a malformed one is refused naming the line and imports nothing', async () => {
    from = h.clock.now();
    refs.a = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 60_000, payerAccount: '237677001001' }) }), 201).reference;
    refs.c = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 20_000, payerAccount: '237677001002' }) }), 201).reference;
    refs.d = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: 10_000, payerAccount: '237677001003' }) }), 201).reference;
    for (const r of [refs.a, refs.c, refs.d]) await settle(r);
    refs.b = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ amount: 5000, beneficiaryAccount: '237677001004' }) }), 201).reference;
    await settle(refs.b);
    await tellMerchants(h);
    h.clock.advance(2 * 3_600_000);
    const to = h.clock.now();

    const noFile = await staff.run({ railCode: RAIL, from, to });
    expect(noFile.status).toBe(400);
    expect(noFile.json.code).toBe('STATEMENT_FILE_REQUIRED');

    const good = sim.statementCsv();
    const lines = good.trim().split('\n');
    expect(lines).toHaveLength(5);
    const badAmount = [lines[0], lines[1], lines[2]!.replace(/,-?\d+,XAF,/, ',douze,XAF,'), lines[3]].join('\n');
    const refused = await staff.run({ railCode: RAIL, from, to, file: badAmount });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'STATEMENT_FILE_INVALID' });
    expect(refused.json.message).toContain('ligne 3');
    const noColumn = await staff.run({ railCode: RAIL, from, to, file: good.replace('External Transaction Id', 'Ref') });
    expect(noColumn.json.code).toBe('STATEMENT_FILE_INVALID');
    expect(noColumn.json.message).toContain('présentation inconnue : colonne(s) manquante(s) « External Transaction Id » (ou « External Id », « externalId », « External Reference »)');
    expect(noColumn.json.message).toContain('« Ref »');
    const notCsv = await staff.run({ railCode: RAIL, from, to, file: 'Id,Date\n"unterminated,2026' });
    expect(notCsv.json.code).toBe('STATEMENT_FILE_INVALID');
    expect((await staff.as(staff.admin, 'GET', '/api/v1/admin/reconciliation/runs')).json.data.totalElements).toBe(0);
    expect(await staff.openCases()).toEqual([]);

    const clean = await staff.run({ railCode: RAIL, from, to, file: good });
    expect(clean.status).toBe(201);
    expect(clean.json.data).toMatchObject({ source: 'FILE', operatorRecords: 4, matched: 4, casesOpened: 0, drift: 0 });
  });

  it('each planted discrepancy opens exactly one case of its kind; a second import opens nothing; a reversal is posted back', async () => {
    sim.statement.plant({ kind: 'UNASKED_PAYMENT', amount: 7000, currency: 'XAF', msisdn: '237677009999' });
    sim.statement.plant({ kind: 'REVERSAL_OF', reference: refs.c });
    sim.statement.plant({ kind: 'AMOUNT_OF', reference: refs.d, amount: 9000 });
    sim.statement.plant({ kind: 'ADJUSTMENT', amount: -2500, currency: 'XAF' });
    const file = sim.statementCsv();
    // The planted rows carry the simulator's clock, now: the period ends just after.
    const to = new Date(h.clock.now().getTime() + 1000);
    const first = await staff.run({ railCode: RAIL, from, to, file });
    expect(first.json.data).toMatchObject({ operatorRecords: 7, casesOpened: 4, drift: 7000 + 20_000 + 1000 + 2500 });
    const cases = await staff.openCases();
    expect(cases.map((c) => c.kind).sort()).toEqual(['AMOUNT_MISMATCH', 'BALANCE_DRIFT', 'OPERATOR_ONLY', 'STATUS_MISMATCH']);
    const c = await rowOf(h, refs.c);
    expect(cases.find((x) => x.kind === 'STATUS_MISMATCH')).toMatchObject({ transactionId: c.id, amount: 20_000 });
    expect(cases.find((x) => x.kind === 'AMOUNT_MISMATCH')).toMatchObject({ transactionId: (await rowOf(h, refs.d)).id, amount: 1000 });

    const again = await staff.run({ railCode: RAIL, from, to, file });
    expect(again.json.data).toMatchObject({ casesOpened: 0, drift: first.json.data.drift });

    const available = merchantAccount(t.applicationId, 'LIVE', 'XAF', 'AVAILABLE').key;
    const before = await accountBalance(h.services.db, available);
    const reversal = cases.find((x) => x.kind === 'STATUS_MISMATCH')!;
    expect((await staff.resolve(reversal.id, 'RECORD_REVERSAL')).status).toBe(200);
    expect(await accountBalance(h.services.db, available)).toBe(before - (c.amount - (c.feeAmount ?? 0)));
    expect(await ledgerDiscrepancies(h)).toEqual([]);
    const after = await staff.run({ railCode: RAIL, from, to, file });
    expect(after.json.data).toMatchObject({ casesOpened: 0, drift: 7000 + 1000 + 2500 });
  });
});
