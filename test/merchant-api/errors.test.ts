/**
 * Every error code of the merchant API (`domain/errors.ts`), produced where it applies, with every
 * limit tested on both sides of its boundary; plus robustness: nothing a client sends causes a 500.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../../src/db/schema.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import {
  chargeBody,
  checkoutBody,
  expectError,
  expectSuccess,
  expectValidationError,
  PATHS,
  TIMESTAMP,
  transferBody,
} from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => h?.close());

const post = (path: string, body: unknown, key = t.key) => h.request('POST', path, { key, body });
const size = (max: number) => `la taille doit être comprise entre 0 et ${max}`;
const email = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;

const ENDPOINTS = [
  { name: 'checkout', path: PATHS.checkout, body: checkoutBody, required: ['amount', 'currency'] },
  { name: 'charge', path: PATHS.charge, body: chargeBody, required: ['amount', 'currency', 'paymentMethod', 'payerAccount'] },
  {
    name: 'transfer',
    path: PATHS.transfer,
    body: transferBody,
    required: ['amount', 'currency', 'paymentMethod', 'beneficiaryAccount', 'beneficiaryName'],
  },
] as const;

describe('VALIDATION_ERROR', () => {
  describe.each(ENDPOINTS)('$name', ({ path, body, required }) => {
    it('an empty object maps every missing required field', async () => {
      const data = expectValidationError(await post(path, {}), [...required]);
      for (const field of required) expect(data[field]).toBe('ne doit pas être nul');
    });

    it('no body at all is reported like an empty object', async () => {
      expectValidationError(await h.request('POST', path, { key: t.key }), [...required]);
    });

    it('explicit nulls for required fields are missing fields', async () => {
      const nulls = Object.fromEntries(required.map((f) => [f, null]));
      const data = expectValidationError(await post(path, body(nulls)), [...required]);
      for (const field of required) expect(data[field]).toBe('ne doit pas être nul');
    });

    it.each([
      [0, 'doit être supérieur ou égal à 1'],
      [-1, 'doit être supérieur ou égal à 1'],
      [-5000, 'doit être supérieur ou égal à 1'],
      [1.5, 'doit être un nombre entier'],
      [5000.01, 'doit être un nombre entier'],
      ['5000', 'doit être un nombre'],
      [true, 'doit être un nombre'],
      [[5000], 'doit être un nombre'],
      [{ value: 5000 }, 'doit être un nombre'],
    ])('amount %j → %s', async (amount, message) => {
      const data = expectValidationError(await post(path, body({ amount })), ['amount']);
      expect(data.amount).toBe(message);
    });

    it('amount 1 passes validation (the rail limits decide)', async () => {
      const response = await post(path, body({ amount: 1 }));
      expectError(response, 400, 'AMOUNT_BELOW_MINIMUM');
    });

    it('a string field given another type says so', async () => {
      const data = expectValidationError(await post(path, body({ currency: 978 })), ['currency']);
      expect(data.currency).toBe('doit être une chaîne de caractères');
    });

    it('a lowercase currency is refused', async () => {
      expectValidationError(await post(path, body({ currency: 'xaf' })), ['currency']);
    });
  });

  it('charge: every field of the wrong type is reported at once', async () => {
    const data = expectValidationError(
      await post(PATHS.charge, {
        amount: '5000',
        currency: 1,
        paymentMethod: 2,
        payerAccount: 3,
        merchantReference: 4,
        description: 5,
        payerName: 6,
        payerEmail: 7,
        idempotencyKey: 8,
      }),
      ['amount', 'currency', 'paymentMethod', 'payerAccount', 'merchantReference', 'description', 'payerName', 'payerEmail', 'idempotencyKey'],
    );
    expect(data.amount).toBe('doit être un nombre');
    expect(data.payerName).toBe('doit être une chaîne de caractères');
  });

  it('transfer: every field of the wrong type is reported at once', async () => {
    expectValidationError(
      await post(PATHS.transfer, {
        amount: false,
        currency: [],
        paymentMethod: {},
        beneficiaryAccount: 237677000001,
        beneficiaryName: 1,
        beneficiaryEmail: 2,
        merchantReference: 3,
        description: 4,
      }),
      ['amount', 'currency', 'paymentMethod', 'beneficiaryAccount', 'beneficiaryName', 'beneficiaryEmail', 'merchantReference', 'description'],
    );
  });

  it('checkout: every failing field is reported at once', async () => {
    expectValidationError(
      await post(PATHS.checkout, { amount: 0, currency: 'francs', merchantReference: 'x'.repeat(256), description: 1, successUrl: 'ftp://x', cancelUrl: 5 }),
      ['amount', 'currency', 'merchantReference', 'description', 'successUrl', 'cancelUrl'],
    );
  });

  it('blank required strings are refused', async () => {
    const data = expectValidationError(await post(PATHS.transfer, transferBody({ paymentMethod: '  ', beneficiaryName: '' })), [
      'paymentMethod',
      'beneficiaryName',
    ]);
    expect(data.beneficiaryName).toBe('ne doit pas être vide');
  });

  it('payerEmail takes any string of at most 255 characters, as SharePay does; "" means absent', async () => {
    const any = expectSuccess(await post(PATHS.charge, chargeBody({ payerEmail: 'pas-une-adresse' })), 201);
    expect(any.payerEmail).toBe('pas-une-adresse');
    const empty = expectSuccess(await post(PATHS.charge, chargeBody({ payerEmail: '' })), 201);
    expect(empty.payerEmail).toBeNull();
    const status = await h.request('GET', `/api/v1/pay-in/check_status/${empty.reference}`, { key: t.key });
    expect(status.json.data.payerEmail).toBeNull();
    expect(expectSuccess(await post(PATHS.charge, chargeBody({ payerEmail: 'x'.repeat(255) })), 201).payerEmail).toHaveLength(255);
    expect(expectValidationError(await post(PATHS.charge, chargeBody({ payerEmail: 'x'.repeat(256) })), ['payerEmail']).payerEmail).toBe(size(255));
    expectValidationError(await post(PATHS.charge, chargeBody({ payerEmail: 7 })), ['payerEmail']);
  });

  it('a malformed beneficiaryEmail is refused; "" means absent', async () => {
    expectValidationError(await post(PATHS.transfer, transferBody({ beneficiaryEmail: 'a@' })), ['beneficiaryEmail']);
    expect(expectSuccess(await post(PATHS.transfer, transferBody({ beneficiaryEmail: '' })), 201).beneficiaryEmail).toBeNull();
  });

  describe('length limits, both sides', () => {
    it('checkout: 255 characters accepted', async () => {
      expectSuccess(await post(PATHS.checkout, checkoutBody({ merchantReference: 'r'.repeat(255), description: 'd'.repeat(255) })), 201);
    });

    it('checkout: 256 characters refused on every such field', async () => {
      const data = expectValidationError(await post(PATHS.checkout, checkoutBody({ merchantReference: 'r'.repeat(256), description: 'd'.repeat(256) })), [
        'merchantReference',
        'description',
      ]);
      expect(data).toEqual({ merchantReference: size(255), description: size(255) });
    });

    it('charge: 255 / 100 characters accepted', async () => {
      const data = expectSuccess(
        await post(
          PATHS.charge,
          chargeBody({
            description: 'd'.repeat(255),
            merchantReference: 'r'.repeat(255),
            payerName: 'n'.repeat(255),
            payerEmail: email(255),
            idempotencyKey: 'k'.repeat(100),
          }),
        ),
        201,
      );
      expect(data.payerEmail).toHaveLength(255);
    });

    it('charge: 256 / 101 characters refused on every such field', async () => {
      const data = expectValidationError(
        await post(
          PATHS.charge,
          chargeBody({
            description: 'd'.repeat(256),
            merchantReference: 'r'.repeat(256),
            payerName: 'n'.repeat(256),
            payerEmail: email(256),
            idempotencyKey: 'k'.repeat(101),
            payerAccount: '6'.repeat(101),
          }),
        ),
        ['description', 'merchantReference', 'payerName', 'payerEmail', 'idempotencyKey', 'payerAccount'],
      );
      expect(data).toEqual({
        description: size(255),
        merchantReference: size(255),
        payerName: size(255),
        payerEmail: size(255),
        idempotencyKey: size(100),
        payerAccount: size(100),
      });
    });

    it('charge: a 100-character payerAccount is within the length limit (refused only as not a phone number)', async () => {
      const data = expectValidationError(await post(PATHS.charge, chargeBody({ payerAccount: '6'.repeat(100) })), ['payerAccount']);
      expect(data.payerAccount).not.toBe(size(100));
    });

    it('transfer: 255 characters accepted', async () => {
      expectSuccess(
        await post(
          PATHS.transfer,
          transferBody({ beneficiaryName: 'n'.repeat(255), beneficiaryEmail: email(255), description: 'd'.repeat(255), merchantReference: 'r'.repeat(255) }),
        ),
        201,
      );
    });

    it('transfer: 256 / 101 characters refused on every such field', async () => {
      const data = expectValidationError(
        await post(
          PATHS.transfer,
          transferBody({
            beneficiaryName: 'n'.repeat(256),
            beneficiaryEmail: email(256),
            description: 'd'.repeat(256),
            merchantReference: 'r'.repeat(256),
            beneficiaryAccount: '6'.repeat(101),
          }),
        ),
        ['beneficiaryName', 'beneficiaryEmail', 'description', 'merchantReference', 'beneficiaryAccount'],
      );
      expect(data).toEqual({
        beneficiaryName: size(255),
        beneficiaryEmail: size(255),
        description: size(255),
        merchantReference: size(255),
        beneficiaryAccount: size(100),
      });
    });

    it('transfer: a 100-character beneficiaryAccount is within the length limit', async () => {
      const data = expectValidationError(await post(PATHS.transfer, transferBody({ beneficiaryAccount: '6'.repeat(100) })), ['beneficiaryAccount']);
      expect(data.beneficiaryAccount).not.toBe(size(100));
    });

    it('Idempotency-Key header: 100 characters accepted, 101 refused', async () => {
      const ok = await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody(), headers: { 'idempotency-key': 'h'.repeat(100) } });
      expectSuccess(ok, 201);
      const tooLong = await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody(), headers: { 'idempotency-key': 'h'.repeat(101) } });
      expectValidationError(tooLong, ['Idempotency-Key']);
    });
  });
});

describe('MALFORMED_JSON', () => {
  it.each(['{', '{"amount":5000,', 'amount=5000', '{"amount":5000}}', "{'amount':5000}", '""x'])('%j', async (raw) => {
    for (const { path } of ENDPOINTS) {
      expectError(await h.request('POST', path, { key: t.key, raw, headers: { 'content-type': 'application/json' } }), 400, 'MALFORMED_JSON');
    }
  });
});

describe('CURRENCY_MISMATCH', () => {
  it("a currency that is not the application's", async () => {
    expectError(await post(PATHS.checkout, checkoutBody({ currency: 'XOF' })), 400, 'CURRENCY_MISMATCH');
    expectError(await post(PATHS.charge, chargeBody({ currency: 'XOF' })), 400, 'CURRENCY_MISMATCH');
    expectError(await post(PATHS.transfer, transferBody({ currency: 'XOF' })), 400, 'CURRENCY_MISMATCH');
  });

  it("the application's currency, but not the rail's", async () => {
    const xof = await h.createTenant({ currency: 'XOF' });
    expectError(await post(PATHS.charge, chargeBody({ currency: 'XOF' }), xof.key), 400, 'CURRENCY_MISMATCH');
    expectError(await post(PATHS.transfer, transferBody({ currency: 'XOF' }), xof.key), 400, 'CURRENCY_MISMATCH');
  });

  it('a checkout in a currency no active rail carries', async () => {
    const eur = await h.createTenant({ currency: 'EUR' });
    expectError(await post(PATHS.checkout, checkoutBody({ currency: 'EUR' }), eur.key), 400, 'CURRENCY_MISMATCH');
  });
});

describe('AMOUNT_BELOW_MINIMUM / AMOUNT_ABOVE_MAXIMUM (MTN_MOMO_CM: 100..1000000 XAF)', () => {
  it.each([
    [99, 'AMOUNT_BELOW_MINIMUM'],
    [100, null],
    [1_000_000, null],
    [1_000_001, 'AMOUNT_ABOVE_MAXIMUM'],
  ])('amount %d', async (amount, code) => {
    // Transfers are funded: each case draws on a fresh sandbox balance (1 000 000).
    const funded = await h.createTenant();
    for (const [path, body, key] of [
      [PATHS.checkout, checkoutBody({ amount }), t.key],
      [PATHS.charge, chargeBody({ amount }), t.key],
      [PATHS.transfer, transferBody({ amount }), funded.key],
    ] as const) {
      const response = await post(path, body, key);
      if (code) expectError(response, 400, code);
      else expectSuccess(response, 201);
    }
  });

  it('a checkout uses the widest limits of the currency’s active rails', async () => {
    // XOF rails: MTN_MOMO_BJ and MOOV_MONEY_BJ stop at 1 000 000, the Ivorian and Senegalese ones at 1 500 000.
    const xof = await h.createTenant({ currency: 'XOF' });
    expectSuccess(await post(PATHS.checkout, checkoutBody({ currency: 'XOF', amount: 1_500_000 }), xof.key), 201);
    expectError(await post(PATHS.checkout, checkoutBody({ currency: 'XOF', amount: 1_500_001 }), xof.key), 400, 'AMOUNT_ABOVE_MAXIMUM');
    expectError(await post(PATHS.checkout, checkoutBody({ currency: 'XOF', amount: 99 }), xof.key), 400, 'AMOUNT_BELOW_MINIMUM');
    // A charge on a narrower rail keeps that rail's own maximum.
    expectError(
      await post(PATHS.charge, chargeBody({ currency: 'XOF', amount: 1_000_001, paymentMethod: 'MTN_MOMO_BJ', payerAccount: '+229 01 97 00 00 01' }), xof.key),
      400,
      'AMOUNT_ABOVE_MAXIMUM',
    );
  });

  it('amount 1 succeeds on a rail whose minimum is 1 (MPESA_KE, whole shillings)', async () => {
    const kes = await h.createTenant({ currency: 'KES' });
    const data = expectSuccess(
      await post(PATHS.charge, chargeBody({ currency: 'KES', amount: 1, paymentMethod: 'MPESA_KE', payerAccount: '0712345678' }), kes.key),
      201,
    );
    expect(data).toMatchObject({ amount: 1, payerAccount: '254712345678' });
  });

  it('counts MTN_MOMO_GH limits in pesewas: 1 to 20,000 GHS', async () => {
    const ghs = await h.createTenant({ currency: 'GHS' });
    const charge = (amount: number) => post(PATHS.charge, chargeBody({ currency: 'GHS', amount, paymentMethod: 'MTN_MOMO_GH', payerAccount: '0241234567' }), ghs.key);
    expectError(await charge(99), 400, 'AMOUNT_BELOW_MINIMUM');
    expect(expectSuccess(await charge(100), 201)).toMatchObject({ amount: 100, payerAccount: '233241234567' });
    expect(expectSuccess(await charge(2_000_000), 201)).toMatchObject({ amount: 2_000_000 });
    expectError(await charge(2_000_001), 400, 'AMOUNT_ABOVE_MAXIMUM');
  });
});

describe('INVALID_PARAMETER', () => {
  it.each(['PI-$$$', 'PI%20123', 'x'.repeat(65), '%ZZ', "PI-1'%20OR%201=1", '..%2F..%2Fetc'])('malformed reference %j', async (reference) => {
    for (const path of [PATHS.payInStatus(reference), PATHS.payOutStatus(reference)]) {
      expectError(await h.request('GET', path, { key: t.key }), 400, 'INVALID_PARAMETER');
    }
  });

  it('a reference over the router limit is still answered with the envelope', async () => {
    expectError(await h.request('GET', PATHS.payInStatus('A'.repeat(1000)), { key: t.key }), 400, 'INVALID_PARAMETER');
  });
});

describe('PROVIDER_NOT_FOUND (404, data null)', () => {
  it('an unknown provider code', async () => {
    expectError(await post(PATHS.charge, chargeBody({ paymentMethod: 'FOO_BAR_CM' })), 404, 'PROVIDER_NOT_FOUND');
    expectError(await post(PATHS.transfer, transferBody({ paymentMethod: 'mtn_momo_cm' })), 404, 'PROVIDER_NOT_FOUND');
  });

  it('a rail deactivated in the database', async () => {
    await h.services.db.update(providers).set({ active: false }).where(eq(providers.code, 'ORANGE_MONEY_CM'));
    try {
      expectError(await post(PATHS.charge, chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '699000001' })), 404, 'PROVIDER_NOT_FOUND');
      expectError(await post(PATHS.transfer, transferBody({ paymentMethod: 'ORANGE_MONEY_CM' })), 404, 'PROVIDER_NOT_FOUND');
    } finally {
      await h.services.db.update(providers).set({ active: true }).where(eq(providers.code, 'ORANGE_MONEY_CM'));
    }
    expectSuccess(await post(PATHS.charge, chargeBody({ paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '699000001' })), 201);
  });

  it('a LIVE key on a rail without a connector', async () => {
    const live = await h.createTenant({ environment: 'LIVE' });
    expect(live.key).toMatch(/^sk_live_[0-9a-f]{128}$/);
    expectError(await post(PATHS.charge, chargeBody(), live.key), 404, 'PROVIDER_NOT_FOUND');
    expectError(await post(PATHS.transfer, transferBody(), live.key), 404, 'PROVIDER_NOT_FOUND');
    // A checkout no rail could serve would be a session nobody can pay.
    expectError(await post(PATHS.checkout, { amount: 5000, currency: 'XAF' }, live.key), 404, 'PROVIDER_NOT_FOUND');
  });
});

describe('TRANSACTION_NOT_FOUND and RESOURCE_NOT_FOUND', () => {
  it('an unknown, well-formed reference', async () => {
    expectError(await h.request('GET', PATHS.payInStatus('PI-0123456789AB'), { key: t.key }), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await h.request('GET', PATHS.payOutStatus('PO-0123456789AB'), { key: t.key }), 404, 'TRANSACTION_NOT_FOUND');
  });

  it.each([
    // '/' redirects to the dashboard (test/web/serving.test.ts).
    ['GET', '/index.html'],
    ['GET', '/api/v1/nothing'],
    ['POST', '/api/v1/pay-in/void'],
    ['GET', '/api/v1/pay-in/refund'],
    ['GET', '/api/v1/pay-in/charge'],
    ['DELETE', '/api/v1/pay-in/checkout'],
    ['PUT', '/api/v1/pay-out/transfer'],
    ['GET', '/api/v2/pay-in/check_status/PI-0123456789AB'],
  ])('%s %s → RESOURCE_NOT_FOUND with the envelope', async (method, path) => {
    expectError(await h.request(method, path, { key: t.key }), 404, 'RESOURCE_NOT_FOUND');
    expectError(await h.request(method, path), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('body size', () => {
  it('a body over 1 MiB is refused with an envelope (413)', async () => {
    const raw = JSON.stringify(checkoutBody({ description: 'x'.repeat(1024 * 1024) }));
    const response = await h.request('POST', PATHS.checkout, { key: t.key, raw, headers: { 'content-type': 'application/json' } });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a body just under 1 MiB is read (and then validated)', async () => {
    const raw = JSON.stringify(checkoutBody({ padding: 'x'.repeat(1024 * 1024 - 200) }));
    expect(raw.length).toBeLessThan(1024 * 1024);
    expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, raw, headers: { 'content-type': 'application/json' } }), 201);
  });
});

describe('nothing a client sends causes a 500', () => {
  const odd: unknown[] = [
    [],
    [checkoutBody()],
    'text',
    42,
    true,
    null,
    { amount: { $gt: 0 }, currency: 'XAF' },
    { amount: 1e308, currency: 'XAF' },
    { amount: Number.MAX_SAFE_INTEGER, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677000001', beneficiaryName: 'A' },
    { amount: Number.MAX_SAFE_INTEGER + 2, currency: 'XAF' },
    { amount: -0, currency: 'XAF' },
    { amount: 5000, currency: 'XAF', description: '💸 paiement été ü 中文 عربى' },
    { amount: 5000, currency: 'XAF', description: 'a\u0000b', merchantReference: '\u0000' },
    { amount: 5000, currency: 'XAF', paymentMethod: 'MTN\u0000', payerAccount: '677000001', payerName: 'x\u0000', beneficiaryName: '\u0000' },
    { amount: 5000, currency: 'XA\u0000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677000001\u0000' },
    { amount: 5000, currency: 'XAF', description: '\ud800' },
    { amount: 5000, currency: 'XAF', paymentMethod: "'; drop table transactions; --", payerAccount: '677000001', beneficiaryName: 'x' },
    { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '+'.repeat(20) },
    { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677000001', payerEmail: 'a@b.c'.repeat(60) },
    { amount: 5000, currency: 'XAF', successUrl: 'javascript:alert(1)', cancelUrl: 'http://' },
    { amount: 5000, currency: 'XAF', nested: { deep: { deeper: [[[[[[[[[[1]]]]]]]]]] } } },
    Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`f${i}`, i])),
    { amount: [1, 2, 3], currency: { code: 'XAF' }, paymentMethod: [], payerAccount: {}, beneficiaryName: [] },
  ];
  const rawBodies = [
    '',
    ' ',
    'null',
    '[]',
    '{"amount":1e400,"currency":"XAF"}',
    '{"__proto__":{"polluted":true},"amount":5000,"currency":"XAF"}',
    '{"constructor":{"prototype":{"polluted":true}},"amount":5000,"currency":"XAF"}',
    '{"amount":5000,"currency":"XAF","amount":"dup"}',
    '\u00ef\u00bb\u00bf{"amount":5000,"currency":"XAF"}',
    '{"amount":5000,"currency":"XAF"}garbage',
    '[' .repeat(5000) + ']'.repeat(5000),
  ];

  it.each(ENDPOINTS)('$name: odd JSON bodies', async ({ path }) => {
    for (const body of odd) {
      const response = await post(path, body);
      expect(response.status, `${JSON.stringify(body).slice(0, 80)} → ${response.text.slice(0, 200)}`).toBeLessThan(500);
      expect(response.json?.timestamp).toMatch(TIMESTAMP);
      expect(typeof response.json.success).toBe('boolean');
    }
  });

  it.each(ENDPOINTS)('$name: odd raw bodies and content types', async ({ path }) => {
    const cases: [string, string | undefined][] = [
      ...rawBodies.map((raw) => [raw, 'application/json'] as [string, string]),
      ['{"amount":5000,"currency":"XAF"}', 'text/plain'],
      ['amount=5000&currency=XAF', 'application/x-www-form-urlencoded'],
      ['--x\r\nContent-Disposition: form-data; name="amount"\r\n\r\n5000\r\n--x--', 'multipart/form-data; boundary=x'],
      ['{"amount":5000,"currency":"XAF"}', 'application/xml'],
      ['{"amount":5000,"currency":"XAF"}', undefined],
      ['\u0000\u0001\u0002', 'application/octet-stream'],
    ];
    for (const [raw, type] of cases) {
      const response = await h.request('POST', path, { key: t.key, raw, headers: type ? { 'content-type': type } : {} });
      expect(response.status, `${type} ${JSON.stringify(raw).slice(0, 60)} → ${response.text.slice(0, 200)}`).toBeLessThan(500);
      expect(response.json?.timestamp, response.text.slice(0, 200)).toMatch(TIMESTAMP);
      expect(response.json.success).toBe(response.status < 300);
    }
  });

  it('odd paths and methods', async () => {
    for (const [method, path] of [
      ['GET', '/%'],
      ['GET', '/api/v1/pay-in/check_status/%E0%A4%A'],
      ['GET', '/api/v1/pay-in/check_status/'],
      ['GET', `/api/v1/pay-in/check_status/${'%00'.repeat(10)}`],
      ['GET', '/api/v1/pay-in/check_status/PI-0123456789AB?x=%ZZ&y=1&y=2'],
      ['POST', '/api/v1/pay-in/check_status/PI-0123456789AB'],
      ['OPTIONS', PATHS.charge],
      ['PATCH', PATHS.charge],
      ['GET', '/checkout/%ZZ'],
      ['GET', `/checkout/${'x'.repeat(5000)}`],
    ] as const) {
      const response = await h.request(method, path, { key: t.key });
      expect(response.status, `${method} ${path} → ${response.text.slice(0, 200)}`).toBeLessThan(500);
      if (!path.startsWith('/checkout/')) expect(response.json?.timestamp, response.text.slice(0, 200)).toMatch(TIMESTAMP);
    }
  });
});

describe('INTERNAL_SERVER_ERROR', () => {
  it('an unexpected failure answers 500 with the envelope and no internals', async () => {
    // Make the database fail under the request (the rails table disappears for a moment).
    await h.services.db.execute(sql`alter table providers rename to providers_hidden`);
    let response;
    try {
      response = await post(PATHS.charge, chargeBody());
    } finally {
      await h.services.db.execute(sql`alter table providers_hidden rename to providers`);
    }
    expectError(response, 500, 'INTERNAL_SERVER_ERROR');
    expect(response.json.message).toMatch(/statut de la transaction/);
    expect(response.text).not.toMatch(/providers|select|relation|stack|at .*\.ts/i);
    expectSuccess(await post(PATHS.charge, chargeBody()), 201);
  });
});
