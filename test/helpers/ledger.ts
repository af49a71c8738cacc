/**
 * Ledger helpers for tests: the invariant check every money, concurrency and crash test ends
 * with, and account balances by name.
 */
import { expect } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import { accountBalance } from '../../src/ledger/balances.ts';
import { merchantAccount, operatorFloatAccount, platformAccount } from '../../src/ledger/accounts.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import type { Harness, Tenant } from '../harness.ts';

/** Asserts `kolo ledger verify`'s invariants: Σ lines = 0, entries balanced, balances = Σ lines, none negative. */
export async function expectLedgerBalanced(db: Db): Promise<void> {
  const report = await verifyLedger(db);
  expect(report.discrepancies).toEqual([]);
  expect(report.ok).toBe(true);
}

/** A tenant's merchant balances in XAF (TEST unless said otherwise), base units. */
export async function tenantBalances(h: Harness, t: Tenant, environment = 'TEST', currency = 'XAF') {
  const key = (kind: 'AVAILABLE' | 'PENDING' | 'RESERVED') => merchantAccount(t.applicationId, environment, currency, kind).key;
  return {
    available: await accountBalance(h.services.db, key('AVAILABLE')),
    pending: await accountBalance(h.services.db, key('PENDING')),
    reserved: await accountBalance(h.services.db, key('RESERVED')),
  };
}

/** Platform balances (TEST unless said otherwise): a rail's float, fee revenue and suspense. */
export async function platformBalances(h: Harness, rail = 'MTN_MOMO_CM', environment = 'TEST', currency = 'XAF') {
  return {
    float: await accountBalance(h.services.db, operatorFloatAccount(rail, environment, currency).key),
    fees: await accountBalance(h.services.db, platformAccount('FEE_REVENUE', environment, currency).key),
    suspense: await accountBalance(h.services.db, platformAccount('SUSPENSE', environment, currency).key),
  };
}
