/**
 * `kolo trigger <event>`: makes a Kolo emit `event` by creating, through the merchant API over
 * HTTP with a TEST key, the sandbox transaction that produces it (the sandbox rail's numbers:
 * README, "Sandbox numbers"): a charge of a number ending in 001 succeeds and one ending in 100
 * is declined by the payer; the same numbers as beneficiaries for transfers; a full refund of a
 * charge once it succeeded gives `payment.refunded` and `refund.success`. Prints the
 * reference(s); the event follows after SANDBOX_DELAY_MS (3 s by default). No database.
 */
import { randomUUID } from 'node:crypto';
import { CommandError, UsageError, type CliContext } from '../context.ts';
import { print } from '../output.ts';
import { apiKeyOf, baseUrlOf } from './listen.ts';

/** Events `trigger` can produce. */
export const TRIGGER_EVENTS = ['payment.success', 'payment.failed', 'payout.success', 'payout.failed', 'payment.refunded', 'refund.success'] as const;
export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

/**
 * Per currency, a rail of the sandbox and its numbers (international form, valid for the rail's
 * country) that succeed (…001) and that are declined (…100).
 */
export const SANDBOX_RAILS: Record<string, { rail: string; succeeds: string; declined: string }> = {
  XAF: { rail: 'MTN_MOMO_CM', succeeds: '237677000001', declined: '237677000100' },
  XOF: { rail: 'MTN_MOMO_CI', succeeds: '2250500000001', declined: '2250500000100' },
  KES: { rail: 'MPESA_KE', succeeds: '254712000001', declined: '254712000100' },
  GHS: { rail: 'MTN_MOMO_GH', succeeds: '233240000001', declined: '233240000100' },
  UGX: { rail: 'MTN_MOMO_UG', succeeds: '256772000001', declined: '256772000100' },
};

/** Amount of each triggered transaction, in base units: within every sandbox rail's limits. */
const AMOUNTS: Record<string, number> = { XAF: 1000, XOF: 1000, KES: 100, GHS: 1000, UGX: 1000 };
/** Longest wait for the charge of a refund to succeed (SANDBOX_DELAY_MS is 3 s by default). */
const SUCCESS_WAIT_MS = 60_000;
/** Time limit of one call to the merchant API. */
const REQUEST_TIMEOUT_MS = 15_000;

/** Options of `trigger`, parsed. */
export interface TriggerOptions {
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
  currency: string;
  json?: boolean | undefined;
}

/** `kolo trigger <event>`. */
export async function trigger(ctx: CliContext, event: TriggerEvent, opts: TriggerOptions): Promise<void> {
  const apiKey = apiKeyOf(ctx, opts.apiKey);
  if (!apiKey.startsWith('sk_test_')) throw new UsageError('trigger creates sandbox transactions: it needs a TEST key (sk_test_…)');
  const baseUrl = baseUrlOf(ctx, opts.baseUrl);
  const sandbox = SANDBOX_RAILS[opts.currency];
  if (!sandbox) throw new UsageError(`no sandbox rail known for ${opts.currency}: --currency ${Object.keys(SANDBOX_RAILS).join(', ')}`);
  const amount = AMOUNTS[opts.currency]!;

  const call = async (method: 'GET' | 'POST', path: string, body?: Record<string, unknown>) => {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new CommandError(`${baseUrl} unreachable (${(error as Error).message})`);
    }
    const answer = (await response.json().catch(() => null)) as { code?: string; message?: string; data?: Record<string, unknown> } | null;
    if (!response.ok || !answer?.data) {
      const hint = answer?.code === 'CURRENCY_MISMATCH' ? ` (the application's currency is not ${opts.currency}: give --currency)` : '';
      const detail = answer?.data ? ` ${JSON.stringify(answer.data)}` : '';
      throw new CommandError(`${method} ${path} answered ${response.status}${answer?.code ? ` ${answer.code}: ${answer.message}${detail}` : ''}${hint}`);
    }
    return answer.data;
  };
  const charge = (payerAccount: string) =>
    call('POST', '/api/v1/pay-in/charge', { amount, currency: opts.currency, paymentMethod: sandbox.rail, payerAccount, description: `kolo trigger ${event}` });
  const transfer = (beneficiaryAccount: string) =>
    call('POST', '/api/v1/pay-out/transfer', { amount, currency: opts.currency, paymentMethod: sandbox.rail, beneficiaryAccount, beneficiaryName: 'Kolo Trigger', description: `kolo trigger ${event}` });

  const references: string[] = [];
  switch (event) {
    case 'payment.success':
    case 'payment.failed':
      references.push(String((await charge(event === 'payment.success' ? sandbox.succeeds : sandbox.declined)).reference));
      break;
    case 'payout.success':
    case 'payout.failed':
      references.push(String((await transfer(event === 'payout.success' ? sandbox.succeeds : sandbox.declined)).reference));
      break;
    case 'payment.refunded':
    case 'refund.success': {
      const reference = String((await charge(sandbox.succeeds)).reference);
      references.push(reference);
      const deadline = Date.now() + SUCCESS_WAIT_MS;
      for (;;) {
        const status = (await call('GET', `/api/v1/pay-in/check_status/${reference}`)).status;
        if (status === 'SUCCESS') break;
        if (status !== 'PENDING' || Date.now() > deadline) throw new CommandError(`the charge ${reference} did not succeed (${String(status)}): nothing to refund`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      references.push(String((await call('POST', '/api/v1/pay-in/refund', { reference, reason: `kolo trigger ${event}` })).reference));
      break;
    }
  }
  print(ctx.io, opts.json, `${event}: ${references.join(' then refund ')} created on ${baseUrl} (the event follows when the sandbox settles it)`, { event, references });
}
