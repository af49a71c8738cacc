/**
 * Wave's view of a wallet's movements for reconciliation: the Balance & Reconciliation API's
 * `GET /v1/transactions?date=YYYY-MM-DD[&after=<cursor>]` (https://docs.wave.com/balance-api),
 * one UTC day per listing, paged by `page_info.end_cursor` while `has_next_page`. Each item is
 * `{transaction_id, timestamp, amount (signed decimal string: negative leaves the wallet), fee,
 * currency, client_reference, is_reversal, transaction_type}`; `is_reversal` and the
 * `adjustment` type are Wave's names for a reversal and a balance adjustment [I: field names as
 * the Balance API reference lists them, types beyond `amount`'s sign unverified]. The Checkout key
 * of the wallet is used (Wave keys are given the Balance API in the Business Portal).
 */
import type { WaveWalletConfig } from './wave-config.ts';
import { callOperator, type FetchFn } from '../operator-http.ts';
import type { OperatorRecord, RecordPeriod } from '../statement.ts';

/** What fetching Wave's records needs. */
export interface WaveStatementOptions {
  baseUrl: string;
  wallet: WaveWalletConfig;
  fetch: FetchFn;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
}

/** Bounds: a period is at most 31 days; a day is at most 200 pages. */
const DAYS_MAX = 31;
const PAGES_MAX = 200;
const DAY_MS = 86_400_000;

/** One item of Wave's transaction list, as read. */
export interface WaveTransactionItem {
  transaction_id: string;
  timestamp: string;
  amount: string;
  currency: string;
  client_reference?: string | null;
  is_reversal?: boolean;
  transaction_type?: string;
  reversed_transaction_id?: string | null;
}

/** The normalised record of a Wave list item (pure). Throws an Error naming the field when the item is not one. */
export function waveRecordOf(item: WaveTransactionItem): OperatorRecord {
  const signed = /^-?\d{1,15}$/.test(String(item.amount)) ? Number(item.amount) : Number.NaN;
  if (!item.transaction_id || !Number.isSafeInteger(signed) || signed === 0) throw new Error(`Wave transaction item without a valid transaction_id or amount`);
  const at = new Date(item.timestamp);
  if (Number.isNaN(at.getTime())) throw new Error(`Wave transaction ${item.transaction_id}: invalid timestamp`);
  return {
    operatorTransactionId: item.transaction_id,
    reference: item.client_reference || null,
    amount: Math.abs(signed),
    currency: item.currency,
    direction: signed > 0 ? 'IN' : 'OUT',
    status: 'SUCCEEDED',
    at,
    kind: item.is_reversal ? 'REVERSAL' : item.transaction_type === 'adjustment' ? 'ADJUSTMENT' : 'PAYMENT',
    reversalOf: item.reversed_transaction_id ?? null,
  };
}

/**
 * Every movement of `options.wallet` in `period`, listed day by day. Throws an Error (with the
 * HTTP status, never the key) when Wave cannot be reached or refuses; the period is capped at 31 days.
 */
export async function fetchWaveRecords(options: WaveStatementOptions, period: RecordPeriod): Promise<OperatorRecord[]> {
  const records: OperatorRecord[] = [];
  const firstDay = Math.floor(period.from.getTime() / DAY_MS);
  const lastDay = Math.floor((period.to.getTime() - 1) / DAY_MS);
  if (lastDay - firstDay + 1 > DAYS_MAX) throw new Error(`Wave lists at most ${DAYS_MAX} days at once`);
  for (let day = firstDay; day <= lastDay; day++) {
    const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    let after: string | null = null;
    for (let page = 0; ; page++) {
      if (page >= PAGES_MAX) throw new Error(`Wave transactions of ${date}: more than ${PAGES_MAX} pages`);
      const query = new URLSearchParams({ date, ...(after ? { after } : {}) });
      const answer = await callOperator(
        options.fetch,
        { method: 'GET', url: `${options.baseUrl}/v1/transactions?${query}`, headers: { Authorization: `Bearer ${options.wallet.checkoutApiKey}` } },
        options.timeoutMs,
      );
      if (answer.kind !== 'RESPONSE') throw new Error(`Wave transactions of ${date}: ${answer.error}`);
      if (answer.status !== 200) throw new Error(`Wave transactions of ${date}: HTTP ${answer.status}`);
      const body = answer.json as { items?: WaveTransactionItem[]; page_info?: { has_next_page?: boolean; end_cursor?: string | null } } | undefined;
      if (!body || !Array.isArray(body.items)) throw new Error(`Wave transactions of ${date}: no items in the answer`);
      for (const item of body.items) {
        const record = waveRecordOf(item);
        if (record.at >= period.from && record.at < period.to) records.push(record);
      }
      if (!body.page_info?.has_next_page || !body.page_info.end_cursor) break;
      after = body.page_info.end_cursor;
    }
  }
  return records;
}
