/**
 * The routes serialized without zod at run time (charge, transfer, both status reads:
 * `compiledJsonSerializer`) still answer exactly what their response schemas say: every body they
 * send, success and error, parses with the route's zod schema and loses nothing by it (no field
 * outside the schema, no value of another type), and the merchant's own text comes back exactly as
 * it was sent, whatever characters JSON must escape in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { compiledJsonSerializer, envelopeOf, errorEnvelope, ok } from '../../src/http/envelope.ts';
import { chargeData, payInStatusData, payOutStatusData, transferData } from '../../src/http/schemas/payments.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeBody, PATHS, transferBody } from '../helpers/merchant-api.ts';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
});
afterAll(async () => {
  await h?.close();
});

/** The body parses with `schema`, and what zod keeps of it is the whole body. */
function expectExactly(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  expect(parsed.error, JSON.stringify(body)).toBeUndefined();
  expect(parsed.data).toStrictEqual(body);
}

describe('bodies of the routes with a compiled serializer match their response schemas', () => {
  it('charge 201 and pay-in status 200, then 404, 401 and 400', async () => {
    const created = await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ description: 'Commande 7' }) });
    expect(created.status).toBe(201);
    expectExactly(envelopeOf(chargeData), created.json);

    const status = await h.request('GET', PATHS.payInStatus(created.json.data.reference), { key: t.key });
    expect(status.status).toBe(200);
    expect(status.json.data).toMatchObject({ reference: created.json.data.reference, description: 'Commande 7', amount: 5000 });
    expectExactly(envelopeOf(payInStatusData), status.json);

    const unknown = await h.request('GET', PATHS.payInStatus('PI-000000000000'), { key: t.key });
    expect(unknown.status).toBe(404);
    expectExactly(errorEnvelope, unknown.json);

    const noKey = await h.request('GET', PATHS.payInStatus(created.json.data.reference), {});
    expect(noKey.status).toBe(401);
    expectExactly(errorEnvelope, noKey.json);

    const invalid = await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ amount: -1 }) });
    expect(invalid.status).toBe(400);
    expect(invalid.json.code).toBe('VALIDATION_ERROR');
    expectExactly(errorEnvelope, invalid.json);
  });

  it("the merchant's text, escapes and non-ASCII included, comes back as it was sent", async () => {
    const description = 'Café « n°7 » "entre guillemets" \\ barre, tab\t, ligne\u2028, émoji 🙂, contrôle \u0001';
    const created = await h.request('POST', PATHS.charge, { key: t.key, body: chargeBody({ description }) });
    expect(created.status).toBe(201);
    expectExactly(envelopeOf(chargeData), created.json);
    const status = await h.request('GET', PATHS.payInStatus(created.json.data.reference), { key: t.key });
    expect(status.status).toBe(200);
    expect(status.json.data.description).toBe(description);
    expect(status.json.message).toBe('Statut du paiement récupéré.');
    expectExactly(envelopeOf(payInStatusData), status.json);
  });

  it('transfer 201 and pay-out status 200', async () => {
    const created = await h.request('POST', PATHS.transfer, { key: t.key, body: transferBody({ beneficiaryEmail: 'awa@example.cm' }) });
    expect(created.status).toBe(201);
    expectExactly(envelopeOf(transferData), created.json);

    const status = await h.request('GET', PATHS.payOutStatus(created.json.data.reference), { key: t.key });
    expect(status.status).toBe(200);
    expect(status.json.data).toMatchObject({ reference: created.json.data.reference, beneficiaryEmail: 'awa@example.cm' });
    expectExactly(envelopeOf(payOutStatusData), status.json);
  });
});

describe('compiledJsonSerializer writes each value as it is', () => {
  const serialize = compiledJsonSerializer({ schema: envelopeOf(chargeData), httpStatus: '201' });
  const data = {
    reference: 'PI-0123456789AB',
    status: 'PENDING' as const,
    amount: 5000,
    currency: 'XAF',
    description: 'Café « 7 »',
    paymentMethod: 'MTN_MOMO_CM',
    payerAccount: '237677000321',
    payerName: null,
    payerEmail: null,
  };

  it('the same text as JSON.stringify for a body of its schema', () => {
    const body = ok(data, 'Paiement initié.', new Date(2026, 10, 24, 6, 0, 0, 123));
    expect(serialize(body)).toBe(JSON.stringify(body));
    const wave = { ...body, data: { ...data, redirectUrl: 'https://pay.wave.com/c/x' } };
    expect(serialize(wave)).toBe(JSON.stringify(wave));
  });

  it('neither a constant of the schema nor 0 or "" in place of what the body holds', () => {
    const astray = { ...ok(data, 'Paiement initié.', new Date()), success: false, data: { ...data, status: 'SUCCESS', amount: null, currency: null } };
    const written = JSON.parse(serialize(astray));
    expect(written.success).toBe(false);
    expect(written.data).toMatchObject({ status: 'SUCCESS', amount: null, currency: null });
    expect(envelopeOf(chargeData).safeParse(written).success).toBe(false);
  });

  it('error bodies as JSON.stringify writes them', () => {
    const body = { success: false, code: 'UNAUTHORIZED', message: 'Clé API invalide.', data: null, timestamp: '2026-11-24T06:00:00.000' };
    expect(compiledJsonSerializer({ schema: errorEnvelope, httpStatus: '401' })(body)).toBe(JSON.stringify(body));
  });
});
