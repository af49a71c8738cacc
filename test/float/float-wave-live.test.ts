/**
 * The float of a Wave rail, LIVE keys against the Wave simulator: Kolo reads the wallet's balance
 * (`GET /v1/balance`), the simulator serves what it actually did (its payouts take amount + fee
 * from the wallet), and a pay-out the wallet cannot cover waits for float, sending nothing to
 * Wave until the balance is raised.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { WaveSimulator } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import { readRailFloat, runFloatTick } from '../../src/float/index.ts';
import type { Harness, Tenant } from '../harness.ts';
import { useLiveOperator, waveOperator } from '../helpers/live-operator.ts';
import { chargeBody, expectSuccess, PATHS, transferBody } from '../helpers/merchant-api.ts';
import { rowOf, settled } from '../helpers/live.ts';

const RAIL = 'WAVE_SN';
let sim: WaveSimulator;
let h: Harness;
let t: Tenant;
const live = useLiveOperator(waveOperator());
beforeAll(() => ({ sim, h, t } = live));

const payouts = (reference: string) => sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payout' && JSON.parse(r.body).client_reference === reference);

describe('Wave float', () => {
  it('reads the wallet balance as the simulator moved it, and holds a pay-out it cannot cover', async () => {
    // Funding: a LIVE checkout paid into the wallet.
    const funding = expectSuccess(
      await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ paymentMethod: RAIL, currency: 'XOF', amount: 500_000, payerAccount: '221771230900' }) }),
      201,
    );
    const session = [...sim.sessions.values()].find((s) => s.client_reference === funding.reference)!;
    sim.pay(session.id as string);
    expect((await settled(h, funding.reference)).status).toBe('SUCCESS');

    sim.options.wallets.SN.balance = 20_000;
    expect(await readRailFloat(h.services, RAIL)).toMatchObject({ operatorBalance: 20_000, currency: 'XOF', hasBalanceQuery: true, state: 'OK' });
    const reference = expectSuccess(
      await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ paymentMethod: RAIL, currency: 'XOF', amount: 30_000, beneficiaryAccount: '221771230011' }) }),
      201,
    ).reference as string;
    expect(await rowOf(h, reference)).toMatchObject({ status: 'PENDING', initiatedAt: null });
    expect(payouts(reference)).toHaveLength(0);

    sim.options.wallets.SN.balance = 100_000;
    h.clock.advance(h.services.config.floatReadIntervalMs);
    await runFloatTick(h.services);
    expect(payouts(reference)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 100));
    await live.pollAfter(10_000);
    expect((await settled(h, reference)).status).toBe('SUCCESS');
    // Wave took the payout and its fee from the wallet; the next reading says so.
    const after = await readRailFloat(h.services, RAIL);
    expect(after!.operatorBalance).toBe(sim.options.wallets.SN.balance);
    expect(after!.operatorBalance).toBeLessThanOrEqual(70_000);
  });
});
