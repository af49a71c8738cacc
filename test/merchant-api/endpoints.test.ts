/**
 * The five merchant endpoints (checkout, charge, both status reads, transfer) on their happy paths:
 * HTTP status, envelope, exact `data` field sets, references, stored phone numbers, compatibility
 * tolerances (unknown fields, null optionals, doubled slash) and cross-application isolation.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced } from '../helpers/ledger.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import {
  chargeBody,
  checkoutBody,
  expectError,
  expectSuccess,
  expectValidationError,
  FIELDS,
  PATHS,
  PAY_IN_REFERENCE,
  PAY_OUT_REFERENCE,
  transactionRow,
  transferBody,
} from '../helpers/merchant-api.ts';

/** package.json's version, read as a file (not through src/version.ts, which the route uses). */
const packageVersion: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => {
  // Concurrent creations of every kind: the ledger still balances.
  if (h) await expectLedgerBalanced(h.services.db);
  await h?.close();
});

describe('POST /api/v1/pay-in/checkout', () => {
  it('answers 201 with exactly the checkout fields, a PI- reference and a paymentUrl', async () => {
    const response = await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody() });
    const data = expectSuccess(response, 201);
    expect(response.json.message).toBe('Session de paiement créée.');
    expect(Object.keys(data).sort()).toEqual(FIELDS.checkout);
    expect(data.reference).toMatch(PAY_IN_REFERENCE);
    expect(data).toMatchObject({ status: 'PENDING', amount: 5000, currency: 'XAF', description: 'Commande 42' });
    expect(data.paymentUrl).toMatch(new RegExp(`^${h.baseUrl}/checkout/cs_[0-9a-f]{32}$`));
  });

  it('description is null when absent', async () => {
    const data = expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: { amount: 100, currency: 'XAF' } }), 201);
    expect(data.description).toBeNull();
  });

  it('keeps the merchant reference and the landing URLs (application defaults otherwise)', async () => {
    const other = await h.createTenant({
      application: { successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/cancel' },
    });
    const explicit = expectSuccess(
      await h.request('POST', PATHS.checkout, {
        key: other.key,
        body: checkoutBody({ successUrl: 'https://shop.example/merci?o=1', cancelUrl: null }),
      }),
      201,
    );
    const row = await transactionRow(h, explicit.reference);
    expect(row).toMatchObject({
      merchantReference: 'CMD-42',
      successUrl: 'https://shop.example/merci?o=1',
      cancelUrl: 'https://shop.example/cancel',
      type: 'CHECKOUT',
      direction: 'PAY_IN',
    });
  });
});

describe('POST /api/v1/pay-in/charge', () => {
  it('answers 201 with exactly the charge fields', async () => {
    const response = await h.request('POST', PATHS.charge, {
      key: t.key,
      body: chargeBody({ description: 'Abonnement', payerName: 'Jean Mbarga', payerEmail: 'jean@example.cm', merchantReference: 'INV-7' }),
    });
    const data = expectSuccess(response, 201);
    expect(response.json.message).toBe('Paiement initié.');
    expect(Object.keys(data).sort()).toEqual(FIELDS.charge);
    expect(data.reference).toMatch(PAY_IN_REFERENCE);
    expect(data).toEqual({
      reference: data.reference,
      status: 'PENDING',
      amount: 5000,
      currency: 'XAF',
      description: 'Abonnement',
      paymentMethod: 'MTN_MOMO_CM',
      payerAccount: '237677000001',
      payerName: 'Jean Mbarga',
      payerEmail: 'jean@example.cm',
    });
    expect((await transactionRow(h, data.reference)).merchantReference).toBe('INV-7');
  });

  it('optional fields are null when absent, and 5000.0 is the integer 5000', async () => {
    const response = await h.request('POST', PATHS.charge, {
      key: t.key,
      raw: '{"amount":5000.0,"currency":"XAF","paymentMethod":"MTN_MOMO_CM","payerAccount":"237677000001"}',
      headers: { 'content-type': 'application/json' },
    });
    const data = expectSuccess(response, 201);
    expect(data).toMatchObject({ amount: 5000, description: null, payerName: null, payerEmail: null });
  });
});

describe('POST /api/v1/pay-out/transfer', () => {
  it('answers 201 with exactly the transfer fields and a PO- reference', async () => {
    const response = await h.request('POST', PATHS.transfer, {
      key: t.key,
      body: transferBody({ beneficiaryEmail: 'awa@example.cm', description: 'Remboursement' }),
    });
    const data = expectSuccess(response, 201);
    expect(response.json.message).toBe('Virement initié.');
    expect(Object.keys(data).sort()).toEqual(FIELDS.transfer);
    expect(data.reference).toMatch(PAY_OUT_REFERENCE);
    expect(data).toEqual({
      reference: data.reference,
      status: 'PENDING',
      amount: 5000,
      currency: 'XAF',
      description: 'Remboursement',
      paymentMethod: 'MTN_MOMO_CM',
      beneficiaryAccount: '237677000001',
      beneficiaryName: 'Awa Ngono',
      beneficiaryEmail: 'awa@example.cm',
    });
  });

  it('beneficiaryEmail and description are null when absent', async () => {
    const data = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201);
    expect(data).toMatchObject({ beneficiaryEmail: null, description: null });
  });
});

describe('pay-in and pay-out status', () => {
  it('pay-in status of a checkout: every field, type CHECKOUT, paymentUrl while PENDING, no failure', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.checkout, { key: t.key, body: checkoutBody() }), 201);
    const response = await h.request('GET', PATHS.payInStatus(created.reference), { key: t.key });
    const data = expectSuccess(response, 200);
    expect(Object.keys(data).sort()).toEqual(FIELDS.payInStatus);
    expect(data).toEqual({
      reference: created.reference,
      type: 'CHECKOUT',
      status: 'PENDING',
      amount: 5000,
      currency: 'XAF',
      description: 'Commande 42',
      paymentMethod: null,
      payerAccount: null,
      payerName: null,
      payerEmail: null,
      paymentUrl: created.paymentUrl,
      failureCode: null,
      failureReason: null,      feeAmount: null,
      netAmount: null,
      refundedAmount: 0,
      operatorTransactionId: null,
      lateSuccess: false,
    });
  });

  it('pay-in status of a charge: type CHARGE, paymentUrl null', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerName: 'Jean' }) }), 201);
    const data = expectSuccess(await h.request('GET', PATHS.payInStatus(created.reference), { key: t.key }), 200);
    expect(Object.keys(data).sort()).toEqual(FIELDS.payInStatus);
    expect(data).toEqual({
      reference: created.reference,
      type: 'CHARGE',
      status: 'PENDING',
      amount: 5000,
      currency: 'XAF',
      description: null,
      paymentMethod: 'MTN_MOMO_CM',
      payerAccount: '237677000001',
      payerName: 'Jean',
      payerEmail: null,
      paymentUrl: null,
      failureCode: null,
      failureReason: null,      feeAmount: null,
      netAmount: null,
      refundedAmount: 0,
      operatorTransactionId: null,
      lateSuccess: false,
    });
  });

  it('pay-out status: beneficiary fields, no type, no payer fields', async () => {
    const created = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201);
    const data = expectSuccess(await h.request('GET', PATHS.payOutStatus(created.reference), { key: t.key }), 200);
    expect(Object.keys(data).sort()).toEqual(FIELDS.payOutStatus);
    expect(data).not.toHaveProperty('type');
    expect(data).toEqual({
      reference: created.reference,
      status: 'PENDING',
      amount: 5000,
      currency: 'XAF',
      description: null,
      paymentMethod: 'MTN_MOMO_CM',
      beneficiaryAccount: '237677000001',
      beneficiaryName: 'Awa Ngono',
      beneficiaryEmail: null,
      failureCode: null,
      failureReason: null,      // The rail's pay-out fee is 0 by default: the reservation is the amount.
      feeAmount: 0,
      netAmount: 5000,
      operatorTransactionId: null,
      lateSuccess: false,
      // Reserved while the operator has not answered.
      heldAmount: 5000,
      // A TEST pay-out never waits for float.
      queuedForFloat: false,
    });
  });

  it('a pay-in reference on the pay-out status path (and the reverse) is not found', async () => {
    const payIn = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody() }), 201);
    const payOut = expectSuccess(await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody() }), 201);
    expectError(await h.request('GET', PATHS.payOutStatus(payIn.reference), { key: t.key }), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await h.request('GET', PATHS.payInStatus(payOut.reference), { key: t.key }), 404, 'TRANSACTION_NOT_FOUND');
  });
});

describe('references', () => {
  it('are unique across many creations of every kind', async () => {
    const references = new Set<string>();
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const [path, body] =
          i % 3 === 0 ? [PATHS.checkout, checkoutBody()] : i % 3 === 1 ? [PATHS.charge, chargeBody()] : [PATHS.transfer, transferBody()];
        return h.request('POST', path, { key: t.key, body });
      }),
    );
    for (const response of created) references.add(expectSuccess(response, 201).reference);
    expect(references.size).toBe(30);
  });
});

describe('phone numbers', () => {
  it.each(['+237 677 00 00 01', '00237677000001', '677000001', '237677000001', '+237-677-000-001'])(
    'charge payerAccount %j is stored as 237677000001',
    async (payerAccount) => {
      const data = expectSuccess(await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount }) }), 201);
      expect(data.payerAccount).toBe('237677000001');
      expect((await transactionRow(h, data.reference)).payerAccount).toBe('237677000001');
    },
  );

  it('transfer beneficiaryAccount is normalised the same way', async () => {
    const data = expectSuccess(
      await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount: '00237 677 00 00 01' }) }),
      201,
    );
    expect(data.beneficiaryAccount).toBe('237677000001');
  });

  it.each(['+233241234567', '2376770000', 'not a phone', '+237 677 00 00 01 99'])(
    'a number that is not valid in the rail country (%j) is a VALIDATION_ERROR on the field',
    async (payerAccount) => {
      const charge = expectValidationError(
        await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ payerAccount }) }),
        ['payerAccount'],
      );
      expect(charge.payerAccount).toMatch(/numéro/);
      expectValidationError(
        await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryAccount: payerAccount }) }),
        ['beneficiaryAccount'],
      );
    },
  );
});

describe('compatibility tolerances', () => {
  it('ignores unknown fields and treats null optionals as absent', async () => {
    const checkout = expectSuccess(
      await h.request('POST', PATHS.checkout, {
        key: t.key,
        body: {
          amount: 5000,
          currency: 'XAF',
          returnUrl: 'https://x.example',
          callbackUrl: 'https://x.example/cb',
          notifyUrl: 'x',
          webhookUrl: 42,
          description: null,
          merchantReference: null,
          successUrl: null,
          cancelUrl: null,
          metadata: { nested: [1, 2] },
        },
      }),
      201,
    );
    expect(checkout.description).toBeNull();
    const charge = expectSuccess(
      await h.request('POST', PATHS.charge, {
        key: t.key,
        body: chargeBody({ description: null, payerName: null, payerEmail: null, merchantReference: null, idempotencyKey: null, extra: true }),
      }),
      201,
    );
    expect(charge).toMatchObject({ description: null, payerName: null, payerEmail: null });
    const transfer = expectSuccess(
      await h.request('POST', PATHS.transfer, {
        key: t.key,
        body: transferBody({ beneficiaryEmail: null, description: null, merchantReference: null, callbackUrl: 'https://x.example' }),
      }),
      201,
    );
    expect(transfer).toMatchObject({ beneficiaryEmail: null, description: null });
  });

  it('accepts a doubled slash in the path', async () => {
    expectSuccess(await h.request('POST', `/${PATHS.checkout}`, { key: t.key, body: checkoutBody() }), 201);
    const charge = expectSuccess(await h.request('POST', `/${PATHS.charge}`, { key: t.key, body: chargeBody() }), 201);
    expectSuccess(await h.request('GET', `/${PATHS.payInStatus(charge.reference)}`, { key: t.key }), 200);
  });

  it('accepts Accept: application/json and a charset on the content type', async () => {
    expectSuccess(
      await h.request('POST', PATHS.checkout, {
        key: t.key,
        body: checkoutBody(),
        headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' },
      }),
      201,
    );
  });
});

describe('cross-application isolation', () => {
  it("another application's reference is answered exactly like an unknown one", async () => {
    const other = await h.createTenant();
    const payIn = expectSuccess(await h.request('POST', PATHS.charge, { key: other.key, body: chargeBody() }), 201);
    const payOut = expectSuccess(await h.request('POST', PATHS.transfer, { key: other.key, body: transferBody() }), 201);
    const checkout = expectSuccess(await h.request('POST', PATHS.checkout, { key: other.key, body: checkoutBody() }), 201);
    const strip = (json: any) => ({ ...json, timestamp: undefined });

    const unknownIn = await h.request('GET', PATHS.payInStatus('PI-000000000000'), { key: t.key });
    const unknownOut = await h.request('GET', PATHS.payOutStatus('PO-000000000000'), { key: t.key });
    expectError(unknownIn, 404, 'TRANSACTION_NOT_FOUND');
    for (const reference of [payIn.reference, checkout.reference]) {
      const foreign = await h.request('GET', PATHS.payInStatus(reference), { key: t.key });
      expectError(foreign, 404, 'TRANSACTION_NOT_FOUND');
      expect(strip(foreign.json)).toEqual(strip(unknownIn.json));
      expect(foreign.status).toBe(unknownIn.status);
    }
    const foreignOut = await h.request('GET', PATHS.payOutStatus(payOut.reference), { key: t.key });
    expect(strip(foreignOut.json)).toEqual(strip(unknownOut.json));
    expect(foreignOut.status).toBe(404);
    // The owner still sees it.
    expectSuccess(await h.request('GET', PATHS.payInStatus(payIn.reference), { key: other.key }), 200);
  });
});

describe('health and API description', () => {
  it('GET /actuator/health answers {"status":"UP"} with the version of package.json', async () => {
    const response = await h.request('GET', '/actuator/health');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ status: 'UP', version: packageVersion });
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('/openapi.json is OpenAPI 3.1 and describes the five endpoints with their request fields', async () => {
    const response = await h.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.json.openapi).toMatch(/^3\.1/);
    const paths = response.json.paths;
    expect(paths['/api/v1/pay-in/checkout'].post).toBeDefined();
    expect(paths['/api/v1/pay-in/charge'].post).toBeDefined();
    expect(paths['/api/v1/pay-out/transfer'].post).toBeDefined();
    expect(paths['/api/v1/pay-in/check_status/{reference}'].get).toBeDefined();
    expect(paths['/api/v1/pay-out/check_status/{reference}'].get).toBeDefined();
    const charge = paths['/api/v1/pay-in/charge'].post.requestBody.content['application/json'].schema;
    expect([...charge.required].sort()).toEqual(['amount', 'currency', 'payerAccount', 'paymentMethod']);
    expect(charge.properties.idempotencyKey).toBeDefined();
  });
});
