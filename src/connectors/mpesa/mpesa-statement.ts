/**
 * M-Pesa's view of the shortcode's movements for reconciliation: Daraja's Pull Transactions
 * (https://developer.safaricom.co.ke/apis/PullTransaction; the shortcode registered once through
 * `pulltransactions/v1/register`): `POST /pulltransactions/v1/query` `{ShortCode, StartDate,
 * EndDate, OffSetValue}` with dates `YYYY-MM-DD HH:mm:ss` in Kenya time (UTC+3), answered
 * `{ResponseCode: "1000", Response: [[{transactionId, trxDate, msisdn, transactiontype,
 * billreference, amount}]]}` and paged by `OffSetValue` [I: field names as client libraries
 * spell them]. It lists C2B payments into the shortcode only (Kolo's STK pushes), over the last
 * 48 hours: pay-outs (B2C) are not in it. The Daraja token is the connector's, shared through the
 * same store (each new token invalidates the previous one).
 */
import type { MpesaConfig } from './mpesa-config.ts';
import { MPESA_TOKEN_MARGIN_MS } from './mpesa-connector.ts';
import { createDarajaTokens } from './mpesa-token.ts';
import { darajaTokenAnswer } from './mpesa-transformers.ts';
import { basicAuth, callOperator, type FetchFn } from '../operator-http.ts';
import type { SharedState } from '../shared-state.ts';
import type { OperatorRecord, RecordPeriod } from '../statement.ts';

/** What pulling M-Pesa's records needs. */
export interface MpesaStatementOptions {
  config: NonNullable<MpesaConfig>;
  fetch: FetchFn;
  /** Per-call timeout, milliseconds. */
  timeoutMs: number;
  state: SharedState;
  now: () => Date;
}

/** Kenya time is UTC+3 all year. */
const KENYA_OFFSET_MS = 3 * 3_600_000;
/** Bounds: at most 100 pages of an answer. */
const PAGES_MAX = 100;

/** `at` as Daraja's dates: `YYYY-MM-DD HH:mm:ss`, Kenya time. */
export function darajaTime(at: Date): string {
  return new Date(at.getTime() + KENYA_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

/** One row of the pull's answer, as read. */
export interface DarajaPulledTransaction {
  transactionId: string;
  trxDate: string;
  msisdn?: string;
  transactiontype?: string;
  billreference?: string | null;
  amount: string | number;
}

/** The normalised record of a pulled row (pure): a C2B payment, into the shortcode. Throws an Error naming what is wrong. */
export function mpesaRecordOf(row: DarajaPulledTransaction): OperatorRecord {
  const amount = Number(row.amount);
  if (!row.transactionId || !Number.isSafeInteger(amount) || amount <= 0) throw new Error('M-Pesa pulled transaction without a valid transactionId or amount');
  const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(String(row.trxDate));
  const at = local ? new Date(Date.UTC(+local[1]!, +local[2]! - 1, +local[3]!, +local[4]!, +local[5]!, +local[6]!) - KENYA_OFFSET_MS) : new Date(String(row.trxDate));
  if (Number.isNaN(at.getTime())) throw new Error(`M-Pesa transaction ${row.transactionId}: invalid trxDate`);
  return { operatorTransactionId: row.transactionId, reference: row.billreference || null, amount, currency: 'KES', direction: 'IN', status: 'SUCCEEDED', at, kind: 'PAYMENT', reversalOf: null };
}

/** Every C2B payment into the shortcode in `period` (throws an Error, never with the token, when Daraja refuses or cannot be reached). */
export async function fetchMpesaRecords(options: MpesaStatementOptions, period: RecordPeriod): Promise<OperatorRecord[]> {
  const { config, timeoutMs } = options;
  const tokens = createDarajaTokens({
    state: options.state,
    appId: `${config.baseUrl} ${config.consumerKey}`,
    now: options.now,
    marginMs: MPESA_TOKEN_MARGIN_MS,
    fetchTimeoutMs: timeoutMs,
    async fetchToken() {
      const answer = await callOperator(
        options.fetch,
        { method: 'GET', url: `${config.baseUrl}/oauth/v1/generate?grant_type=client_credentials`, headers: { Authorization: basicAuth(config.consumerKey, config.consumerSecret) } },
        timeoutMs,
      );
      return answer.kind === 'UNREACHABLE' ? answer : darajaTokenAnswer(answer.status, answer.json);
    },
  });
  const token = await tokens.current();
  if (!('token' in token)) throw new Error(`M-Pesa token: ${token.error}`);
  const records: OperatorRecord[] = [];
  for (let page = 0, offset = 0; ; page++) {
    if (page >= PAGES_MAX) throw new Error(`M-Pesa pull: more than ${PAGES_MAX} pages`);
    const answer = await callOperator(
      options.fetch,
      {
        method: 'POST',
        url: `${config.baseUrl}/pulltransactions/v1/query`,
        headers: { Authorization: `Bearer ${token.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ShortCode: config.shortCode, StartDate: darajaTime(period.from), EndDate: darajaTime(period.to), OffSetValue: String(offset) }),
      },
      timeoutMs,
    );
    if (answer.kind !== 'RESPONSE') throw new Error(`M-Pesa pull: ${answer.error}`);
    const body = answer.json as { ResponseCode?: string; Response?: DarajaPulledTransaction[][] } | undefined;
    if (answer.status !== 200 || body?.ResponseCode !== '1000') throw new Error(`M-Pesa pull: HTTP ${answer.status} ${body?.ResponseCode ?? ''}`.trim());
    const rows = (body.Response ?? []).flat();
    for (const row of rows) {
      const record = mpesaRecordOf(row);
      if (record.at >= period.from && record.at < period.to) records.push(record);
    }
    if (rows.length === 0) break;
    offset += rows.length;
  }
  return records;
}
