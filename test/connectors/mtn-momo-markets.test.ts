/**
 * MTN MoMo beyond Cameroon with LIVE keys, end to end (real Kolo over HTTP, real database, one
 * simulator per market on a loopback port, each with its own credentials and accepting only its
 * market's `X-Target-Environment` and currency): Côte d'Ivoire (XOF) and Uganda (UGX, no decimals)
 * through `MTN_MOMO_MARKETS`, a charge and a transfer in each, sent with the market's target
 * environment, currency and credentials; a UGX amount with decimals refused before any call; a
 * market pointed at another market's API refused by MTN as a configuration error, moving nothing.
 * Each ends with the ledger's invariants (`kolo ledger verify`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { MTN_SIM_DEFAULTS, startMtnSimulator, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { pollOnce } from '../../src/jobs/status-poller.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { mtnEnv, rowOf } from '../helpers/live.ts';
import { expectSuccess, expectValidationError, PATHS } from '../helpers/merchant-api.ts';

const creds = (market: string) => ({
  collection: { apiUser: MTN_SIM_DEFAULTS.collection.apiUser, apiKey: `${market}-collection-key`, subscriptionKey: `${market}-collection-sub` },
  disbursement: { apiUser: MTN_SIM_DEFAULTS.disbursement.apiUser, apiKey: `${market}-disbursement-key`, subscriptionKey: `${market}-disbursement-sub` },
});

let ci: MtnSimulator;
let ug: MtnSimulator;
let h: Harness;
let xof: Tenant;
let ugx: Tenant;
let ghs: Tenant;

beforeAll(async () => {
  ci = await startMtnSimulator({ market: 'CI', decisionDelayMs: 10, ...creds('CI') });
  ug = await startMtnSimulator({ market: 'UG', decisionDelayMs: 10, ...creds('UG') });
  const markets = {
    CI: { baseUrl: ci.url, ...creds('CI') },
    UG: { baseUrl: ug.url, ...creds('UG') },
    // Misconfigured on purpose: Ghana's credentials sent to Uganda's API.
    GH: { baseUrl: ug.url, ...creds('UG') },
  };
  h = await startHarness({ CONNECTOR_TIMEOUT_MS: '1000', ...mtnEnv(ci), MTN_MOMO_MARKETS: JSON.stringify(markets) });
  xof = await h.createTenant({ environment: 'LIVE', currency: 'XOF' });
  ugx = await h.createTenant({ environment: 'LIVE', currency: 'UGX' });
  ghs = await h.createTenant({ environment: 'LIVE', currency: 'GHS' });
});
afterAll(async () => {
  await h?.close();
  await ci?.close();
  await ug?.close();
});

/** Polls until `reference` leaves PENDING (the simulator decides after 10 ms); returns the row. */
async function settle(reference: string) {
  for (let i = 0; i < 100; i += 1) {
    const row = await rowOf(h, reference);
    if (row.status !== 'PENDING') return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.clock.advance(5_000);
    await pollOnce(h.services);
  }
  throw new Error(`${reference} never settled`);
}

const MARKETS = [
  { name: "Côte d'Ivoire", sim: () => ci, tenant: () => xof, rail: 'MTN_MOMO_CI', currency: 'XOF', environment: 'mtnivorycoast', payer: '2250500000001', payee: '2250500000002' },
  { name: 'Uganda', sim: () => ug, tenant: () => ugx, rail: 'MTN_MOMO_UG', currency: 'UGX', environment: 'mtnuganda', payer: '256772000001', payee: '256772000002' },
];

for (const m of MARKETS) {
  describe(`MTN MoMo ${m.name} (${m.currency})`, () => {
    it('charges, then pays out, with the market\'s target environment, currency and credentials', async () => {
      const t = m.tenant();
      const charge = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: { amount: 15000, currency: m.currency, paymentMethod: m.rail, payerAccount: m.payer } }), 201);
      const paid = await settle(charge.reference);
      expect(paid).toMatchObject({ status: 'SUCCESS', paymentMethod: m.rail });
      const push = m.sim().requests.find((r) => r.path === '/collection/v1_0/requesttopay')!;
      expect(push.headers['x-target-environment']).toBe(m.environment);
      expect(push.headers['ocp-apim-subscription-key']).toBe(creds(m.rail.slice(-2)).collection.subscriptionKey);
      expect(JSON.parse(push.body)).toMatchObject({ amount: '15000', currency: m.currency, externalId: charge.reference, payer: { partyId: m.payer } });

      const transfer = expectSuccess(
        await h.request('POST', PATHS.transfer, { key: t.key, body: { amount: 5000, currency: m.currency, paymentMethod: m.rail, beneficiaryAccount: m.payee, beneficiaryName: 'Awa' } }),
        201,
      );
      expect(await settle(transfer.reference)).toMatchObject({ status: 'SUCCESS' });
      const sent = m.sim().requests.find((r) => r.path === '/disbursement/v1_0/transfer')!;
      expect(sent.headers['x-target-environment']).toBe(m.environment);
      expect(JSON.parse(sent.body)).toMatchObject({ amount: '5000', currency: m.currency, payee: { partyId: m.payee } });
      expect(m.sim().moved().map((x) => [x.direction, x.amount, x.currency])).toEqual([
        ['PAY_IN', 15000, m.currency],
        ['PAY_OUT', 5000, m.currency],
      ]);
      await expectLedgerBalanced(h.services.db);
    });
  });
}

describe('MTN MoMo markets: refusals', () => {
  it('refuses a UGX amount with decimals before any call to MTN', async () => {
    const before = ug.requests.length;
    expectValidationError(
      await h.request('POST', PATHS.charge, { key: ugx.key, body: { amount: 1500.5, currency: 'UGX', paymentMethod: 'MTN_MOMO_UG', payerAccount: '256772000003' } }),
      ['amount'],
    );
    expect(ug.requests.length).toBe(before);
    await expectLedgerBalanced(h.services.db);
  });

  it("fails a charge sent to another market's API as MTN refuses it (wrong target environment), moving nothing", async () => {
    const charge = expectSuccess(await h.request('POST', PATHS.charge, { key: ghs.key, body: { amount: 1000, currency: 'GHS', paymentMethod: 'MTN_MOMO_GH', payerAccount: '233241234567' } }), 201);
    const row = await settle(charge.reference);
    expect(row).toMatchObject({ status: 'FAILED', failureCode: 'CONFIGURATION_ERROR' });
    expect(ug.moved().filter((x) => x.currency === 'GHS')).toEqual([]);
    await expectLedgerBalanced(h.services.db);
  });

  it('simulates each market refusing another market\'s environment and currency, as MTN does', async () => {
    const token = await fetch(`${ug.url}/collection/token/`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${creds('UG').collection.apiUser}:${creds('UG').collection.apiKey}`).toString('base64')}`,
        'ocp-apim-subscription-key': creds('UG').collection.subscriptionKey,
      },
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const push = (environment: string, currency: string) =>
      fetch(`${ug.url}/collection/v1_0/requesttopay`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token.access_token}`,
          'ocp-apim-subscription-key': creds('UG').collection.subscriptionKey,
          'x-reference-id': crypto.randomUUID(),
          'x-target-environment': environment,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ amount: '1000', currency, externalId: 'X1', payer: { partyIdType: 'MSISDN', partyId: '256772000004' } }),
      }).then(async (r) => [r.status, await r.json().catch(() => null)]);
    expect(await push('mtncameroon', 'XAF')).toEqual([500, { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT', message: 'Access to target environment is forbidden.' }]);
    expect(await push('mtnuganda', 'XAF')).toEqual([500, { code: 'INVALID_CURRENCY', message: 'Currency not supported.' }]);
    expect((await push('mtnuganda', 'UGX'))[0]).toBe(202);
  });
});

describe('MTN_MOMO_MARKETS configuration', () => {
  const base = { DATA_DIR: 'memory://', ...mtnEnv({ url: 'http://127.0.0.1:9' }) };
  it('serves one rail per configured market, each with its own target environment', () => {
    const config = loadConfig({ ...base, MTN_MOMO_MARKETS: JSON.stringify({ UG: creds('UG') }) });
    expect(config.mtnMomo!.markets.map((m) => [m.railCode, m.targetEnvironment, m.collection.subscriptionKey])).toEqual([
      ['MTN_MOMO_CM', 'mtncameroon', MTN_SIM_DEFAULTS.collection.subscriptionKey],
      ['MTN_MOMO_UG', 'mtnuganda', 'UG-collection-sub'],
    ]);
  });

  it('refuses bad JSON, an unknown market, a missing product and the primary market twice', () => {
    expect(() => loadConfig({ ...base, MTN_MOMO_MARKETS: '{' })).toThrow(/MTN_MOMO_MARKETS: must be a JSON object/);
    expect(() => loadConfig({ ...base, MTN_MOMO_MARKETS: JSON.stringify({ XX: creds('XX') }) })).toThrow(/MTN_MOMO_MARKETS/);
    expect(() => loadConfig({ ...base, MTN_MOMO_MARKETS: JSON.stringify({ UG: { collection: creds('UG').collection } }) })).toThrow(/MTN_MOMO_MARKETS/);
    expect(() => loadConfig({ ...base, MTN_MOMO_MARKETS: JSON.stringify({ CM: creds('CM') }) })).toThrow(/CM is already served/);
  });
});
