/**
 * Helpers of the reconciliation tests: staff requests (logged in at each call, since the tests
 * move the clock past an access token's life), runs, open cases, resolutions and delivering every
 * due webhook.
 */
import { deliverOnce } from '../../src/jobs/webhook-worker.ts';
import { verifyLedger } from '../../src/ledger/verify-ledger.ts';
import type { Harness } from '../harness.ts';
import { asAccount, createStaffAccount, loginStaff, type StaffAccount } from './dashboard.ts';

/** An open or resolved case as the admin API shows it. */
export interface ApiCase {
  id: string;
  kind: string;
  status: string;
  amount: number;
  transactionId: string | null;
  evidence: Record<string, any>;
}

/** Staff of a harness: an ADMIN and a SUPPORT, and the calls the tests make as them. */
export async function reconciliationStaff(h: Harness) {
  const admin = await createStaffAccount(h, { role: 'ADMIN' });
  const support = await createStaffAccount(h, { role: 'SUPPORT' });
  const as = async (who: StaffAccount, method: string, path: string, body?: unknown) =>
    asAccount(h, (await loginStaff(h, who)).accessToken, method, path, body === undefined ? {} : { body });
  return {
    admin,
    support,
    as,
    run: (body: { railCode: string; from: Date; to: Date; file?: string }, who = admin) =>
      as(who, 'POST', '/api/v1/admin/reconciliation/runs', { ...body, from: body.from.toISOString(), to: body.to.toISOString() }),
    openCases: async (): Promise<ApiCase[]> => (await as(admin, 'GET', '/api/v1/admin/reconciliation/cases?status=OPEN&size=100')).json.data.content,
    resolve: (id: string, action: string, who = admin) => as(who, 'POST', `/api/v1/admin/reconciliation/cases/${id}/resolution`, { action, note: `test ${action}` }),
  };
}

/** Delivers every due webhook (the merchant's receiver answers as it is told). */
export async function tellMerchants(h: Harness): Promise<void> {
  for (let i = 0; i < 20 && (await deliverOnce(h.services)).claimed > 0; i++);
}

/** The ledger's discrepancies (expected: none). */
export async function ledgerDiscrepancies(h: Harness) {
  return (await verifyLedger(h.services.db)).discrepancies;
}
