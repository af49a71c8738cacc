/**
 * Reconciliation of ORANGE_MONEY_CM with LIVE keys against the Orange simulator, from the
 * portal's statement export (`;`-separated CSV, French columns, Cameroon time) that the simulator
 * writes from what it did: a malformed file is refused naming the line and imports nothing; the
 * clean export opens nothing; each planted discrepancy opens exactly one case of its kind; a
 * second import opens nothing; a write-off brings the float to Orange's figure and the ledger
 * stays verified.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { startOrangeSimulator, type OrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { operatorFloatAccount, platformAccount } from '../../src/ledger/accounts.ts';
import type { Harness, Tenant } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';
import { useLiveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { orangeEnv, rowOf, settled } from '../helpers/live.ts';
import { ledgerDiscrepancies, reconciliationStaff, tellMerchants } from '../helpers/reconciliation.ts';

let sim: OrangeSimulator;
let h: Harness;
let t: Tenant;
let staff: Awaited<ReturnType<typeof reconciliationStaff>>;

const live = useLiveOperator({
  startSimulator: () => startOrangeSimulator({ decisionDelayMs: 30 }),
  env: (s: OrangeSimulator) => ({ ...orangeEnv(s), ...DASHBOARD_TEST_ENV }),
  ready: (l) => {
    l.sim.options.nowMs = () => l.h.clock.now().getTime();
  },
});
beforeAll(async () => {
  ({ sim, h, t } = live);
  staff = await reconciliationStaff(h);
});

const RAIL = 'ORANGE_MONEY_CM';
const refs = {} as Record<'a' | 'b' | 'c', string>;
let from: Date;

async function settle(reference: string) {
  await live.pollAfter(10_000);
  expect((await settled(h, reference)).status).toBe('SUCCESS');
}

describe('Orange reconciliation from the statement export (LIVE, simulator)', () => {
  it('a malformed export is refused naming the line and imports nothing; the clean one opens nothing', async () => {
    from = h.clock.now();
    refs.a = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, amount: 40_000, payerAccount: '237699001001' }) }), 201).reference;
    refs.c = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, amount: 15_000, payerAccount: '237699001002' }) }), 201).reference;
    for (const r of [refs.a, refs.c]) await settle(r);
    refs.b = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, amount: 5000, beneficiaryAccount: '237699001004' }) }), 201).reference;
    await settle(refs.b);
    await tellMerchants(h);
    h.clock.advance(2 * 3_600_000);
    const to = h.clock.now();

    const good = sim.statementCsv();
    const lines = good.trim().split('\n');
    expect(lines[0]).toBe('Date;Heure;Référence;Type;Statut;Numéro;Montant;Devise;Référence commande');
    expect(lines).toHaveLength(4);
    const badDate = [lines[0], lines[1]!.replace(/^\d{2}\/\d{2}\/\d{4}/, '2026-11-20'), lines[2], lines[3]].join('\n');
    const refused = await staff.run({ railCode: RAIL, from, to, file: badDate });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('STATEMENT_FILE_INVALID');
    expect(refused.json.message).toContain('ligne 2');
    expect((await staff.as(staff.admin, 'GET', '/api/v1/admin/reconciliation/runs')).json.data.totalElements).toBe(0);

    const clean = await staff.run({ railCode: RAIL, from, to, file: good });
    expect(clean.json.data).toMatchObject({ source: 'FILE', operatorRecords: 3, matched: 3, casesOpened: 0, drift: 0 });
  });

  it('each planted discrepancy opens exactly one case; a second import opens nothing; a write-off posts to LOSS', async () => {
    sim.statement.plant({ kind: 'UNASKED_PAYMENT', amount: 3000, currency: 'XAF', msisdn: '237699009999' });
    sim.statement.plant({ kind: 'REVERSAL_OF', reference: refs.c });
    sim.statement.plant({ kind: 'ADJUSTMENT', amount: 800, currency: 'XAF' });
    const file = sim.statementCsv();
    const to = new Date(h.clock.now().getTime() + 1000);
    const first = await staff.run({ railCode: RAIL, from, to, file });
    expect(first.json.data).toMatchObject({ operatorRecords: 6, casesOpened: 3, drift: 3000 + 15_000 + 800 });
    const cases = await staff.openCases();
    expect(cases.map((c) => c.kind).sort()).toEqual(['BALANCE_DRIFT', 'OPERATOR_ONLY', 'STATUS_MISMATCH']);
    expect(cases.find((c) => c.kind === 'STATUS_MISMATCH')!.transactionId).toBe((await rowOf(h, refs.c)).id);
    expect((await staff.run({ railCode: RAIL, from, to, file })).json.data).toMatchObject({ casesOpened: 0 });

    // Orange credited 800 no payment explains: written off, the float gains 800 and LOSS is credited.
    const float = operatorFloatAccount(RAIL, 'LIVE', 'XAF').key;
    const before = await accountBalance(h.services.db, float);
    expect((await staff.resolve(cases.find((c) => c.kind === 'BALANCE_DRIFT')!.id, 'WRITE_OFF')).status).toBe(200);
    expect(await accountBalance(h.services.db, float)).toBe(before + 800);
    expect(await accountBalance(h.services.db, platformAccount('LOSS', 'LIVE', 'XAF').key)).toBe(-800);
    expect(await ledgerDiscrepancies(h)).toEqual([]);
  });
});
