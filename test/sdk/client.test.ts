/**
 * The SDK against a real running Kolo (the harness: real HTTP on loopback, real database, the
 * sandbox rail): every merchant-API call returns the typed `data` Kolo answered, and every kind of
 * error answer becomes its error class.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Kolo,
  KoloApiError,
  KoloAuthenticationError,
  KoloConnectionError,
  KoloError,
  KoloIdempotencyError,
  KoloNotFoundError,
  KoloValidationError,
} from '../../packages/sdk/src/index.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { countTransactions, PAY_IN_REFERENCE, PAY_OUT_REFERENCE } from '../helpers/merchant-api.ts';
import { settle, startReceiver, type Receiver } from '../helpers/webhooks.ts';

let h: Harness;
let t: Tenant;
let kolo: Kolo;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' });
  t = await h.createTenant();
  kolo = new Kolo({ apiKey: t.key, baseUrl: h.baseUrl });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const charge = { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001' };

describe('payments', () => {
  it('charges to SUCCESS and reads the pay-in status', async () => {
    const created = await kolo.charges.create({ ...charge, merchantReference: 'CMD-1', payerName: 'Awa Ngono' });
    expect(created).toMatchObject({ status: 'PENDING', amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerName: 'Awa Ngono' });
    expect(created.reference).toMatch(PAY_IN_REFERENCE);
    expect((await kolo.payIns.retrieve(created.reference)).status).toBe('PENDING');
    await settle(h);
    const status = await kolo.payIns.retrieve(created.reference);
    expect(status).toMatchObject({ reference: created.reference, type: 'CHARGE', status: 'SUCCESS', amount: 5000, refundedAmount: 0 });
    expect(status.feeAmount).toBeGreaterThan(0);
    expect(status.netAmount).toBe(5000 - status.feeAmount!);
  });

  it('creates a checkout session with a payment page', async () => {
    const checkout = await kolo.checkouts.create({ amount: 2500, currency: 'XAF', description: 'Commande 7', successUrl: 'https://shop.example/ok' });
    expect(checkout).toMatchObject({ status: 'PENDING', amount: 2500, currency: 'XAF', description: 'Commande 7' });
    expect(checkout.paymentUrl.startsWith(h.baseUrl)).toBe(true);
    const page = await fetch(checkout.paymentUrl);
    expect(page.status).toBe(200);
    expect((await kolo.payIns.retrieve(checkout.reference)).type).toBe('CHECKOUT');
  });

  it('transfers to SUCCESS and reads the pay-out status', async () => {
    const transfer = await kolo.transfers.create({
      amount: 2000,
      currency: 'XAF',
      paymentMethod: 'MTN_MOMO_CM',
      beneficiaryAccount: '237677000001',
      beneficiaryName: 'Awa Mbarga',
    });
    expect(transfer.reference).toMatch(PAY_OUT_REFERENCE);
    expect(transfer).toMatchObject({ status: 'PENDING', amount: 2000, beneficiaryName: 'Awa Mbarga' });
    await settle(h);
    const status = await kolo.payOuts.retrieve(transfer.reference);
    expect(status).toMatchObject({ reference: transfer.reference, status: 'SUCCESS', amount: 2000, heldAmount: 0 });
  });

  it('refunds part of a successful payment, then the rest', async () => {
    const paid = await kolo.charges.create(charge);
    await settle(h);
    const first = await kolo.refunds.create({ reference: paid.reference, amount: 1000, reason: 'Article manquant' });
    expect(first).toMatchObject({ paymentReference: paid.reference, status: 'PENDING', amount: 1000, reason: 'Article manquant' });
    expect(first.reference).toMatch(PAY_OUT_REFERENCE);
    await settle(h);
    expect((await kolo.payOuts.retrieve(first.reference)).status).toBe('SUCCESS');
    expect((await kolo.payIns.retrieve(paid.reference)).refundedAmount).toBe(1000);
    const rest = await kolo.refunds.create({ reference: paid.reference });
    expect(rest.amount).toBe(4000);
    await settle(h);
    expect((await kolo.payIns.retrieve(paid.reference)).status).toBe('REFUNDED');
  });

  it("replays a create sent again with the caller's idempotency key", async () => {
    const before = await countTransactions(h, t.applicationId);
    const first = await kolo.charges.create(charge, { idempotencyKey: 'commande-99' });
    const again = await kolo.charges.create(charge, { idempotencyKey: 'commande-99' });
    expect(again.reference).toBe(first.reference);
    expect(await countTransactions(h, t.applicationId)).toBe(before + 1);
    // Without a key given, each call gets its own: two calls, two charges.
    await kolo.charges.create(charge);
    await kolo.charges.create(charge);
    expect(await countTransactions(h, t.applicationId)).toBe(before + 3);
  });
});

describe('webhook endpoint', () => {
  it('sets the URL, reads it back and sends a test event', async () => {
    const own = await h.createTenant();
    const client = new Kolo({ apiKey: own.key, baseUrl: h.baseUrl });
    expect((await client.webhookEndpoint.retrieve()).webhookUrl).toBeNull();
    const updated = await client.webhookEndpoint.update({ webhookUrl: receiver.url });
    expect(updated).toMatchObject({ applicationId: own.applicationId, webhookUrl: receiver.url });
    expect(Number.isNaN(Date.parse(updated.updatedAt))).toBe(false);
    expect((await client.webhookEndpoint.retrieve()).webhookUrl).toBe(receiver.url);
    const sent = receiver.received.length;
    const test = await client.webhookEndpoint.sendTest();
    expect(test).toMatchObject({ delivered: true, webhookUrl: receiver.url, httpStatus: 200 });
    expect(receiver.received.slice(sent).map((r) => JSON.parse(r.body).event)).toEqual(['webhook.test']);
  });
});

describe('errors', () => {
  it('a wrong key is a KoloAuthenticationError with the request id', async () => {
    const wrong = new Kolo({ apiKey: `sk_test_${'0'.repeat(128)}`, baseUrl: h.baseUrl });
    const error = await wrong.charges.create(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloAuthenticationError);
    expect(error).toBeInstanceOf(KoloApiError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'Clé API invalide ou manquante.' });
    expect((error as KoloApiError).requestId).toMatch(/\S/);
  });

  it('invalid fields are a KoloValidationError with the field map', async () => {
    const error = await kolo.charges.create({ ...charge, amount: 0, payerAccount: 'abc' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloValidationError);
    const validation = error as KoloValidationError;
    expect(validation).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(Object.keys(validation.fields).sort()).toEqual(['amount', 'payerAccount']);
    expect(validation.fields.payerAccount).toContain('numéro de téléphone');
  });

  it('a malformed reference is a KoloValidationError (INVALID_PARAMETER), an unknown one a KoloNotFoundError', async () => {
    const invalid = await kolo.payIns.retrieve('PI-pas bon!').catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(KoloValidationError);
    expect(invalid).toMatchObject({ code: 'INVALID_PARAMETER', status: 400 });
    expect(Object.keys((invalid as KoloValidationError).fields)).toEqual(['reference']);
    const missing = await kolo.payOuts.retrieve('PO-000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(KoloNotFoundError);
    expect(missing).toMatchObject({ code: 'TRANSACTION_NOT_FOUND', status: 404 });
  });

  it('an idempotency key reused for another request is a KoloIdempotencyError', async () => {
    await kolo.charges.create(charge, { idempotencyKey: 'commande-100' });
    const error = await kolo.charges.create({ ...charge, amount: 6000 }, { idempotencyKey: 'commande-100' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloIdempotencyError);
    expect(error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 409 });
  });

  it('a business refusal is a KoloApiError with its code', async () => {
    const error = await kolo.transfers
      .create({ amount: 999_999_999, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', beneficiaryAccount: '237677000001', beneficiaryName: 'A' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloApiError);
    expect((error as KoloApiError).status).toBe(400);
    expect((error as KoloApiError).code).toBe('AMOUNT_ABOVE_MAXIMUM');
  });

  it('no server at baseUrl is a KoloConnectionError naming the idempotency key to retry with', async () => {
    const closed = await startReceiver();
    const url = new URL(closed.url).origin;
    await closed.close();
    const offline = new Kolo({ apiKey: t.key, baseUrl: url, maxRetries: 1, initialRetryDelayMs: 1 });
    const error = await offline.charges.create(charge, { idempotencyKey: 'commande-101' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KoloConnectionError);
    expect(error).toMatchObject({ isTimeout: false, idempotencyKey: 'commande-101' });
    expect((error as Error).message).toContain('commande-101');
  });

  it('refuses a misconfiguration at construction, naming the option', () => {
    expect(() => new Kolo({ apiKey: '', baseUrl: h.baseUrl })).toThrow(/apiKey/);
    expect(() => new Kolo({ apiKey: t.key, baseUrl: 'pay.example.com' })).toThrow(/baseUrl/);
    expect(() => new Kolo({ apiKey: t.key, baseUrl: h.baseUrl, maxRetries: 11 })).toThrow(KoloError);
    expect(() => new Kolo({ apiKey: t.key, baseUrl: h.baseUrl, timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  it('refuses out-of-range per-call options before sending', async () => {
    const before = await countTransactions(h, t.applicationId);
    await expect(kolo.charges.create(charge, { maxRetries: 50 })).rejects.toThrow(/maxRetries must be an integer from 0 to 10/);
    await expect(kolo.charges.create(charge, { timeoutMs: -5 })).rejects.toThrow(/timeoutMs/);
    expect(await countTransactions(h, t.applicationId)).toBe(before);
  });
});
