/**
 * Number resolution through real HTTP and the seeded rails: one row per country where a rail is
 * seeded, each number written in another common form, answering its E.164 form, country,
 * operator and rails (usable or not for the key's application); the problems a merchant can hit
 * (Benin's old 8-digit numbers with the new form suggested, a national number with no country, a
 * number of another country, a fixed line), the request's own mistakes (400 with French
 * messages) and the key check.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateApiKey } from '../../src/accounts/api-keys.ts';
import { NUMBER_RESOLUTION_EXAMPLE } from '../../src/http/routes/rails.ts';
import { numberResolutionData } from '../../src/http/schemas/rails.ts';
import { inArray } from 'drizzle-orm';
import { providers } from '../../src/db/schema.ts';
import { hasNumberPlan, NUMBER_PLANS } from '../../src/domain/operator-prefixes.ts';
import { activeRails } from '../../src/rails/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { expectError, expectSuccess, expectValidationError } from '../helpers/merchant-api.ts';

const PATH = '/api/v1/numbers/resolve';
const SEEDED_INACTIVE = ['MTN_MOMO_CG', 'AIRTEL_MONEY_CG', 'AIRTEL_MONEY_GA', 'AIRTEL_MONEY_TD'];
/** Orange Money Web Payment's rails, seeded inactive too: a deployment holding those merchant wallets turns them on. */
const WEBPAY = ['ORANGE_WEBPAY_CI', 'ORANGE_WEBPAY_SN', 'ORANGE_WEBPAY_ML', 'ORANGE_WEBPAY_BF', 'ORANGE_WEBPAY_GN', 'ORANGE_WEBPAY_MG', 'ORANGE_WEBPAY_CM'];

let h: Harness;
let xaf: Tenant;
beforeAll(async () => {
  h = await startHarness();
  xaf = await h.createTenant();
  // Seeded inactive: a deployment serving Congo, Gabon and Chad turns them on.
  await h.services.db.update(providers).set({ active: true }).where(inArray(providers.code, [...SEEDED_INACTIVE, ...WEBPAY]));
});
afterAll(async () => h?.close());

const resolve = async (body: Record<string, unknown>, key = xaf.key) => expectSuccess(await h.request('POST', PATH, { key, body }), 200);

/** One valid number per country where a rail is seeded, in a different common form each time. */
const VALID = [
  { number: '+237 6 77 00 01 00', country: undefined, e164: '+237677000100', at: 'CM', operator: 'MTN_MOMO', rails: ['MTN_MOMO_CM'] },
  { number: '00237 699 00 01 00', country: undefined, e164: '+237699000100', at: 'CM', operator: 'ORANGE_MONEY', rails: ['ORANGE_MONEY_CM', 'ORANGE_WEBPAY_CM'] },
  { number: '237684000100', country: 'CM', e164: '+237684000100', at: 'CM', operator: 'MTN_MOMO', rails: ['MTN_MOMO_CM'] },
  { number: '05 00 00 01 00', country: 'CI', e164: '+2250500000100', at: 'CI', operator: 'MTN_MOMO', rails: ['MTN_MOMO_CI', 'WAVE_CI'] },
  { number: '+225 07 00 00 01 00', country: undefined, e164: '+2250700000100', at: 'CI', operator: 'ORANGE_MONEY', rails: ['ORANGE_MONEY_CI', 'ORANGE_WEBPAY_CI', 'WAVE_CI'] },
  { number: '77 000 01 00', country: 'SN', e164: '+221770000100', at: 'SN', operator: null, rails: ['ORANGE_MONEY_SN', 'ORANGE_WEBPAY_SN', 'WAVE_SN'] },
  { number: '024 123 4567', country: 'GH', e164: '+233241234567', at: 'GH', operator: null, rails: ['MTN_MOMO_GH'] },
  { number: '+256 772 000 100', country: undefined, e164: '+256772000100', at: 'UG', operator: null, rails: ['AIRTEL_MONEY_UG', 'MTN_MOMO_UG'] },
  { number: '0712 000 100', country: 'KE', e164: '+254712000100', at: 'KE', operator: null, rails: ['AIRTEL_MONEY_KE', 'MPESA_KE'] },
  { number: '+229 01 97 00 01 00', country: 'BJ', e164: '+2290197000100', at: 'BJ', operator: null, rails: ['MOOV_MONEY_BJ', 'MTN_MOMO_BJ'] },
  { number: '096 1000100', country: 'ZM', e164: '+260961000100', at: 'ZM', operator: null, rails: ['MTN_MOMO_ZM'] },
  { number: '+224 664 00 01 00', country: undefined, e164: '+224664000100', at: 'GN', operator: null, rails: ['MTN_MOMO_GN', 'ORANGE_WEBPAY_GN'] },
  { number: '7600 0100', country: 'SZ', e164: '+26876000100', at: 'SZ', operator: null, rails: ['MTN_MOMO_SZ'] },
  { number: '083 000 0100', country: 'ZA', e164: '+27830000100', at: 'ZA', operator: null, rails: ['MTN_MOMO_ZA'] },
  { number: '+242 06 123 4567', country: undefined, e164: '+242061234567', at: 'CG', operator: null, rails: ['AIRTEL_MONEY_CG', 'MTN_MOMO_CG'] },
  { number: '06 03 12 34', country: 'GA', e164: '+24106031234', at: 'GA', operator: null, rails: ['AIRTEL_MONEY_GA'] },
  { number: '00235 63 01 23 45', country: undefined, e164: '+23563012345', at: 'TD', operator: null, rails: ['AIRTEL_MONEY_TD'] },
  { number: '+223 76 00 01 00', country: undefined, e164: '+22376000100', at: 'ML', operator: null, rails: ['ORANGE_WEBPAY_ML'] },
  { number: '70 00 01 00', country: 'BF', e164: '+22670000100', at: 'BF', operator: null, rails: ['ORANGE_WEBPAY_BF'] },
  { number: '032 00 001 00', country: 'MG', e164: '+261320000100', at: 'MG', operator: null, rails: ['ORANGE_WEBPAY_MG'] },
];

describe('POST /api/v1/numbers/resolve: valid numbers', () => {
  it('covers every country that has a rail, each with its own prefix table', async () => {
    const countries = new Set((await h.services.db.select({ country: providers.country }).from(providers)).map((r) => r.country));
    expect(new Set((await activeRails(h.services)).map((r) => r.country))).toEqual(countries);
    expect(new Set(VALID.map((v) => v.at))).toEqual(countries);
    expect(new Set(Object.keys(NUMBER_PLANS))).toEqual(countries);
  });

  it('names an operator only where its table lists ranges; elsewhere every rail of the country', () => {
    for (const row of VALID) expect(row.operator === null || hasNumberPlan(row.at), row.at).toBe(true);
    expect(Object.keys(NUMBER_PLANS).filter(hasNumberPlan).sort()).toEqual(['CI', 'CM']);
  });

  for (const row of VALID) {
    it(`${row.number}${row.country ? ` (${row.country})` : ''} → ${row.e164}, ${row.rails.join(', ')}`, async () => {
      const data = await resolve({ number: row.number, country: row.country });
      expect(numberResolutionData.parse(data)).toEqual(data);
      expect(data).toMatchObject({
        input: row.number,
        isValid: true,
        e164: row.e164,
        msisdn: row.e164.slice(1),
        country: row.at,
        operator: row.operator,
        problem: null,
        message: null,
        suggestedE164: null,
      });
      expect(row.e164.endsWith(data.nationalNumber)).toBe(true);
      expect(data.rails.map((r: { code: string }) => r.code)).toEqual(row.rails);
      // A TEST key of an XAF application can use the XAF rails only.
      for (const rail of data.rails) expect(rail.isUsable, rail.code).toBe(rail.currency === 'XAF');
    });
  }

  it("marks usable the rails of the key's application currency: an XOF application uses Côte d'Ivoire's", async () => {
    const xof = await h.createTenant({ currency: 'XOF' });
    const data = await resolve({ number: '+2250500000100' }, xof.key);
    expect(data.rails).toEqual([
      { code: 'MTN_MOMO_CI', name: "MTN Mobile Money Côte d'Ivoire", operator: 'MTN_MOMO', currency: 'XOF', isUsable: true },
      { code: 'WAVE_CI', name: "Wave Côte d'Ivoire", operator: 'WAVE', currency: 'XOF', isUsable: true },
    ]);
  });

  it('marks a rail unusable for a LIVE key while its connector is not configured', async () => {
    const live = await rotateApiKey(h.services, { applicationId: xaf.applicationId, name: 'live', environment: 'LIVE' });
    const data = await resolve({ number: '+237677000100' }, live.plainTextKey);
    expect(data.rails).toEqual([expect.objectContaining({ code: 'MTN_MOMO_CM', isUsable: false })]);
    // The tenant's TEST key was replaced by the LIVE one: give the next tests a fresh tenant.
    xaf = await h.createTenant();
  });

  it('answers a number of a known plan on no listed network with no rail (a Cameroonian 62x number)', async () => {
    const data = await resolve({ number: '+237620000100' });
    expect(data).toMatchObject({ isValid: true, country: 'CM', operator: null, rails: [] });
  });
});

describe('POST /api/v1/numbers/resolve: unusable numbers', () => {
  const PROBLEMS = [
    { body: { number: '+229 97 00 01 00' }, problem: 'BENIN_OLD_NUMBER_PLAN', country: 'BJ', suggestedE164: '+2290197000100' },
    { body: { number: '97000100', country: 'BJ' }, problem: 'BENIN_OLD_NUMBER_PLAN', country: 'BJ', suggestedE164: '+2290197000100' },
    { body: { number: '0700000100' }, problem: 'COUNTRY_REQUIRED', country: null, suggestedE164: null },
    { body: { number: '+256772000100', country: 'CM' }, problem: 'COUNTRY_MISMATCH', country: 'UG', suggestedE164: null },
    { body: { number: '+237 222 00 01 00' }, problem: 'NOT_MOBILE', country: 'CM', suggestedE164: null },
    { body: { number: '+237 1234' }, problem: 'INVALID_NUMBER', country: 'CM', suggestedE164: null },
    { body: { number: '12345', country: 'GH' }, problem: 'INVALID_NUMBER', country: 'GH', suggestedE164: null },
    { body: { number: 'six-sept-sept' }, problem: 'NOT_A_NUMBER', country: null, suggestedE164: null },
  ];
  for (const row of PROBLEMS) {
    it(`${JSON.stringify(row.body)} → ${row.problem}`, async () => {
      const data = await resolve(row.body);
      expect(data).toMatchObject({
        isValid: false,
        e164: null,
        msisdn: null,
        operator: null,
        rails: [],
        problem: row.problem,
        country: row.country,
        suggestedE164: row.suggestedE164,
      });
      expect(data.message).toMatch(/[éèà]|numéro/);
    });
  }

  it('suggests a Beninese number that itself resolves to the Beninese rails', async () => {
    const old = await resolve({ number: '+22997000100' });
    const suggested = await resolve({ number: old.suggestedE164 });
    expect(suggested).toMatchObject({ isValid: true, country: 'BJ', rails: [{ code: 'MOOV_MONEY_BJ' }, { code: 'MTN_MOMO_BJ' }] });
  });
});

describe('POST /api/v1/numbers/resolve: requests at fault', () => {
  it('refuses a missing number and a lower-case country with VALIDATION_ERROR naming each, in French', async () => {
    const fields = expectValidationError(await h.request('POST', PATH, { key: xaf.key, body: { country: 'cm' } }), ['number', 'country']);
    expect(fields.country).toBe('doit être un code de pays ISO 3166 alpha-2 en majuscules (ex. CM)');
  });

  it('refuses a number longer than 40 characters', async () => {
    expectValidationError(await h.request('POST', PATH, { key: xaf.key, body: { number: '6'.repeat(41) } }), ['number']);
    expectSuccess(await h.request('POST', PATH, { key: xaf.key, body: { number: '6'.repeat(40) } }), 200);
  });

  it('refuses a missing or unknown key with 401 UNAUTHORIZED before reading the body', async () => {
    expectError(await h.request('POST', PATH, { body: { number: '+237677000100' } }), 401, 'UNAUTHORIZED');
    expectError(await h.request('POST', PATH, { key: `sk_test_${'0'.repeat(128)}`, body: {} }), 401, 'UNAUTHORIZED');
  });

  it("documents an example that matches its schema", () => {
    expect(numberResolutionData.parse(NUMBER_RESOLUTION_EXAMPLE.data)).toEqual(NUMBER_RESOLUTION_EXAMPLE.data);
  });
});
