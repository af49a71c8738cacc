import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../domain/clock.ts';
import type { StatusQuery } from '../connector.ts';
import { createSandboxConnector, SANDBOX_SUFFIXES, sandboxBehaviour } from './sandbox-connector.ts';

const rail = { code: 'MTN_MOMO_CM', operator: 'MTN_MOMO', country: 'CM', currency: 'XAF' };
const DELAY = 3000;
const LATE = 120_000;

function setup() {
  const start = new Date('2026-11-20T10:00:00Z');
  const clock = createManualClock(start);
  const connector = createSandboxConnector({ clock, delayMs: DELAY, lateDelayMs: LATE });
  const query = (msisdn: string, direction: 'PAY_IN' | 'PAY_OUT' = 'PAY_IN'): StatusQuery => ({
    direction,
    reference: 'PI-0123456789AB',
    operatorReference: null,
    rail,
    msisdn,
    amount: 5000,
    initiatedAt: start,
    initiation: 'ACCEPTED',
  });
  return { clock, connector, query };
}

/** A signal that never aborts: these calls are not given up on. */
const live = new AbortController().signal;

const initiate = (connector: ReturnType<typeof setup>['connector'], msisdn: string, signal: AbortSignal = live) =>
  connector.initiate({
    direction: 'PAY_IN',
    reference: 'PI-0123456789AB',
    rail,
    amount: 5000,
    currency: 'XAF',
    msisdn,
    description: null,
    initiatedAt: new Date('2026-11-20T10:00:00Z'),
    operatorReference: 'SBX-PI-0123456789AB',
    callbackUrl: null,
  }, signal);

const DECLINES: [string, string, string][] = [
  ['100', 'REJECTED_BY_PAYER', 'PAYEE_NOT_ALLOWED'],
  ['101', 'WRONG_PIN', 'PAYEE_NOT_ALLOWED'],
  ['102', 'INSUFFICIENT_FUNDS', 'MERCHANT_INSUFFICIENT_FUNDS'],
  ['103', 'PAYER_NOT_FOUND', 'PAYEE_NOT_FOUND'],
  ['104', 'ACCOUNT_BLOCKED', 'ACCOUNT_BLOCKED'],
  ['105', 'LIMIT_EXCEEDED', 'LIMIT_EXCEEDED'],
  ['106', 'TIMEOUT', 'TIMEOUT'],
  ['107', 'PROVIDER_ERROR', 'PROVIDER_ERROR'],
];

describe('sandbox connector', () => {
  it('prepares a deterministic operator reference, never leaving the process', async () => {
    const { connector } = setup();
    const prepared = await connector.prepare({
      direction: 'PAY_IN',
      reference: 'PI-0123456789AB',
      rail,
      amount: 5000,
      currency: 'XAF',
      msisdn: '237677000197',
      description: null,
      initiatedAt: new Date('2026-11-20T10:00:00Z'),
    }, live);
    expect(prepared).toEqual({ kind: 'PREPARED', operatorReference: 'SBX-PI-0123456789AB' });
  });

  it('documents exactly the magic suffixes of the README', () => {
    expect(Object.keys(SANDBOX_SUFFIXES).sort()).toEqual([...DECLINES.map(([s]) => s), '197', '198', '199'].sort());
  });

  it('an ordinary number is accepted, pending before the delay and succeeds at the delay', async () => {
    const { clock, connector, query } = setup();
    expect(await initiate(connector, '237677000001')).toEqual({ kind: 'ACCEPTED', operatorReference: 'SBX-PI-0123456789AB' });
    expect(await connector.getStatus(query('237677000001'), live)).toEqual({ kind: 'PENDING' });
    clock.advance(DELAY - 1);
    expect(await connector.getStatus(query('237677000001'), live)).toEqual({ kind: 'PENDING' });
    clock.advance(1);
    expect(await connector.getStatus(query('237677000001'), live)).toEqual({
      kind: 'SUCCEEDED',
      operatorReference: 'SBX-PI-0123456789AB',
      operatorTransactionId: 'SBX23456789AB',
    });
  });

  it.each(DECLINES)('…%s declines pay-in with %s and pay-out with %s after the delay', async (suffix, payIn, payOut) => {
    const { clock, connector, query } = setup();
    const msisdn = `237677000${suffix}`;
    expect((await initiate(connector, msisdn)).kind).toBe('ACCEPTED');
    expect(await connector.getStatus(query(msisdn), live)).toEqual({ kind: 'PENDING' });
    clock.advance(DELAY);
    const inResult = await connector.getStatus(query(msisdn, 'PAY_IN'), live);
    const outResult = await connector.getStatus(query(msisdn, 'PAY_OUT'), live);
    expect(inResult).toMatchObject({ kind: 'FAILED', failureCode: payIn });
    expect(outResult).toMatchObject({ kind: 'FAILED', failureCode: payOut });
    expect(inResult.kind === 'FAILED' && inResult.failureReason.length).toBeGreaterThan(0);
  });

  it('an initiation Kolo has already given up on is not sent (NOT_SENT), whatever the number', async () => {
    const { connector } = setup();
    for (const msisdn of ['237677000001', '237677000197']) {
      expect((await initiate(connector, msisdn, AbortSignal.abort())).kind).toBe('NOT_SENT');
    }
  });

  it('…197 is unreachable at initiation and on every status query', async () => {
    const { clock, connector, query } = setup();
    expect((await initiate(connector, '237677000197')).kind).toBe('UNREACHABLE');
    clock.advance(3_600_000);
    expect((await connector.getStatus(query('237677000197'), live)).kind).toBe('UNREACHABLE');
  });

  it('…198 succeeds only after the late delay', async () => {
    const { clock, connector, query } = setup();
    expect((await initiate(connector, '237677000198')).kind).toBe('ACCEPTED');
    clock.advance(DELAY);
    expect((await connector.getStatus(query('237677000198'), live)).kind).toBe('PENDING');
    clock.advance(LATE - DELAY - 1);
    expect((await connector.getStatus(query('237677000198'), live)).kind).toBe('PENDING');
    clock.advance(1);
    expect((await connector.getStatus(query('237677000198'), live)).kind).toBe('SUCCEEDED');
  });

  it('…199 never resolves', async () => {
    const { clock, connector, query } = setup();
    expect((await initiate(connector, '237677000199')).kind).toBe('ACCEPTED');
    clock.advance(24 * 3_600_000);
    expect(await connector.getStatus(query('237677000199'), live)).toEqual({ kind: 'PENDING' });
  });

  it('reads the suffix from the national number, not from the country code', () => {
    // A Ghanaian number whose national part ends in 100 is a decline, like a Cameroonian one.
    expect(sandboxBehaviour('233241234100', 'GH')).toMatchObject({ kind: 'DECLINE', payIn: 'REJECTED_BY_PAYER' });
    expect(sandboxBehaviour('237677000001', 'CM')).toEqual({ kind: 'SUCCEED', late: false });
  });

  it('gives the same answer to the same question (a re-poll is stable)', async () => {
    const { clock, connector, query } = setup();
    clock.advance(DELAY);
    const first = await connector.getStatus(query('237677000102'), live);
    const second = await connector.getStatus(query('237677000102'), live);
    expect(second).toEqual(first);
  });
});
