/**
 * Helpers for the merchant API tests (checkout, charge, transfer and the two status reads): request
 * bodies, the field lists of each response, envelope assertions, and database counts (what a
 * merchant would notice as "charged twice" is a second transaction row).
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import type { Harness, TestResponse } from '../harness.ts';

/** Envelope timestamp: ISO 8601 local time, no zone designator. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$/;
export const PAY_IN_REFERENCE = /^PI-[0-9A-F]{12}$/;
export const PAY_OUT_REFERENCE = /^PO-[0-9A-F]{12}$/;

/** `data` field lists of each operation's answer, sorted. */
export const FIELDS = {
  checkout: ['reference', 'status', 'amount', 'currency', 'description', 'paymentUrl'].sort(),
  charge: ['reference', 'status', 'amount', 'currency', 'description', 'paymentMethod', 'payerAccount', 'payerName', 'payerEmail'].sort(),
  transfer: [
    'reference',
    'status',
    'amount',
    'currency',
    'description',
    'paymentMethod',
    'beneficiaryAccount',
    'beneficiaryName',
    'beneficiaryEmail',
  ].sort(),
  payInStatus: [
    'reference',
    'type',
    'status',
    'amount',
    'currency',
    'description',
    'paymentMethod',
    'payerAccount',
    'payerName',
    'payerEmail',
    'paymentUrl',
    'failureCode',
    'failureReason',
    'feeAmount',
    'netAmount',
    'refundedAmount',
    'operatorTransactionId',
    'lateSuccess',
  ].sort(),
  payOutStatus: [
    'reference',
    'status',
    'amount',
    'currency',
    'description',
    'paymentMethod',
    'beneficiaryAccount',
    'beneficiaryName',
    'beneficiaryEmail',
    'failureCode',
    'failureReason',
    'feeAmount',
    'netAmount',
    'operatorTransactionId',
    'lateSuccess',
    'heldAmount',
    'queuedForFloat',
  ].sort(),
};

export const PATHS = {
  checkout: '/api/v1/pay-in/checkout',
  charge: '/api/v1/pay-in/charge',
  transfer: '/api/v1/pay-out/transfer',
  payInStatus: (reference: string) => `/api/v1/pay-in/check_status/${reference}`,
  payOutStatus: (reference: string) => `/api/v1/pay-out/check_status/${reference}`,
  refund: '/api/v1/pay-in/refund',
};

/** A valid checkout body (XAF). */
export function checkoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 5000, currency: 'XAF', description: 'Commande 42', merchantReference: 'CMD-42', ...overrides };
}

/** A valid charge body on MTN_MOMO_CM; the number succeeds in the sandbox. */
export function chargeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 5000, currency: 'XAF', paymentMethod: 'MTN_MOMO_CM', payerAccount: '237677000001', ...overrides };
}

/** A valid transfer body on MTN_MOMO_CM. */
export function transferBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 5000,
    currency: 'XAF',
    paymentMethod: 'MTN_MOMO_CM',
    beneficiaryAccount: '237677000001',
    beneficiaryName: 'Awa Ngono',
    ...overrides,
  };
}

/** Asserts a success envelope with `status` and returns its `data`. */
export function expectSuccess(response: TestResponse, status: 200 | 201): any {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(response.json).sort()).toEqual(['code', 'data', 'message', 'success', 'timestamp']);
  expect(response.json.success).toBe(true);
  expect(response.json.code).toBe('SUCCESS');
  expect(response.json.message).toMatch(/\.$/);
  expect(response.json.timestamp).toMatch(TIMESTAMP);
  return response.json.data;
}

/** Asserts an error envelope with HTTP `status` and `code`; returns its `data`. */
export function expectError(response: TestResponse, status: number, code: string): any {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.json, response.text).toBeDefined();
  expect(Object.keys(response.json).sort()).toEqual(['code', 'data', 'message', 'success', 'timestamp']);
  expect(response.json.success).toBe(false);
  expect(response.json.code).toBe(code);
  expect(typeof response.json.message).toBe('string');
  expect(response.json.message.length).toBeGreaterThan(0);
  expect(response.json.timestamp).toMatch(TIMESTAMP);
  if (code !== 'VALIDATION_ERROR' && code !== 'INVALID_PARAMETER') expect(response.json.data).toBeNull();
  return response.json.data;
}

/** Asserts a VALIDATION_ERROR whose `data` names exactly `fields`; returns the field map. */
export function expectValidationError(response: TestResponse, fields: string[]): Record<string, string> {
  const data = expectError(response, 400, 'VALIDATION_ERROR');
  expect(Object.keys(data).sort()).toEqual([...fields].sort());
  for (const message of Object.values(data)) expect(typeof message).toBe('string');
  return data;
}

/** Number of transactions of `applicationId`. */
export async function countTransactions(h: Harness, applicationId: string): Promise<number> {
  const [row] = await h.services.db
    .select({ n: count() })
    .from(transactions)
    .where(eq(transactions.applicationId, applicationId));
  return Number(row?.n ?? 0);
}

/** The transaction row with this reference. */
export async function transactionRow(h: Harness, reference: string) {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  if (!row) throw new Error(`no transaction ${reference}`);
  return row;
}

/** The events of a transaction, oldest first. */
export async function eventsOf(h: Harness, reference: string) {
  const row = await transactionRow(h, reference);
  return h.services.db
    .select()
    .from(transactionEvents)
    .where(and(eq(transactionEvents.transactionId, row.id)))
    .orderBy(asc(transactionEvents.createdAt), asc(transactionEvents.id));
}
