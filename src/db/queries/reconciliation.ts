/**
 * Reconciliation's reads of Kolo's side of a rail (transactions, their postings on the rail's
 * operator float, and whether the merchant was told of their final state) and the record of the
 * merchants' reads of the events feed.
 */
import type { Db } from '../client.ts';
import { runStatement, statement } from '../statement.ts';

/** One transaction of a rail as reconciliation sees it. */
export interface KoloSideRow {
  id: string;
  reference: string;
  applicationId: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  status: string;
  amount: number;
  currency: string;
  environment: string;
  operatorTransactionId: string | null;
  isLateSuccess: boolean;
  refundOf: string | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Σ of its lines on operator-float accounts, base units: + money into the float (pay-in), − out
   * (pay-out). Reconciliation's own entries (`RECON_…`, a recorded reversal) are left out: this is
   * what the payment itself moved, as the operator's payment record should show.
   */
  floatNet: number;
  /** Names of its events the merchant received (a delivery answered 2xx) or read in the events feed. */
  toldEvents: string[];
}

const koloSide = statement(
  'reconciliation_kolo_side_v2',
  `select t.id, t.reference, t.application_id, t.direction, t.status, t.amount, t.currency, t.environment,
          t.operator_transaction_id, t.is_late_success, t.refund_of, t.created_at, t.updated_at,
          coalesce((select sum(l.amount) from ledger_entries le
                      join ledger_lines l on l.entry_id = le.id
                      join ledger_accounts a on a.id = l.account_id
                     where le.transaction_id = t.id and a.kind = 'OPERATOR_FLOAT'
                       and le.kind not like 'RECON\_%'), 0)::text as float_net,
          array(select e.event_name from webhook_events e
                 where e.transaction_id = t.id
                   and (exists (select 1 from webhook_deliveries d where d.event_id = e.id and d.status = 'DELIVERED')
                        or exists (select 1 from event_feed_reads r
                                    where r.application_id = e.application_id and r.environment = e.environment
                                      and (e.written_by, e.seq) <= (r.written_by::xid8, r.seq)))) as told_events
     from transactions t
    where t.payment_method = $1 and t.environment = $2
      and ((t.created_at >= $3::timestamptz and t.created_at < $4::timestamptz)
           or t.operator_transaction_id = any($5::text[])
           or t.reference = any($6::text[]))
    order by t.created_at, t.id
    limit $7`,
);

/** At most this many transactions per run (a period is split when a rail has more). */
export const KOLO_SIDE_MAX = 50_000;

/**
 * The transactions of `railCode` in `environment` created in `[from, to)`, plus those the
 * operator's records name (by operator id or our reference) whenever they were created. Throws
 * an Error when more than `KOLO_SIDE_MAX` match.
 */
export async function koloSideOf(
  db: Db,
  input: { railCode: string; environment: string; from: Date; to: Date; operatorIds: string[]; references: string[] },
): Promise<KoloSideRow[]> {
  const { rows } = await runStatement<Record<string, unknown>>(db, koloSide, [
    input.railCode,
    input.environment,
    input.from.toISOString(),
    input.to.toISOString(),
    input.operatorIds,
    input.references,
    KOLO_SIDE_MAX + 1,
  ]);
  if (rows.length > KOLO_SIDE_MAX) throw new Error(`more than ${KOLO_SIDE_MAX} transactions in the period: reconcile a shorter one`);
  const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
  return rows.map((r) => ({
    id: String(r.id),
    reference: String(r.reference),
    applicationId: String(r.application_id),
    direction: r.direction as 'PAY_IN' | 'PAY_OUT',
    status: String(r.status),
    amount: Number(r.amount),
    currency: String(r.currency),
    environment: String(r.environment),
    operatorTransactionId: (r.operator_transaction_id as string | null) ?? null,
    isLateSuccess: Boolean(r.is_late_success),
    refundOf: (r.refund_of as string | null) ?? null,
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    floatNet: Number(r.float_net),
    toldEvents: (r.told_events as string[] | null) ?? [],
  }));
}

const feedRead = statement(
  'event_feed_read_v1',
  `insert into event_feed_reads (application_id, environment, written_by, seq, read_at)
   values ($1, $2, $3, $4, $5::timestamptz)
   on conflict (application_id, environment) do update
      set written_by = excluded.written_by, seq = excluded.seq, read_at = excluded.read_at
    where (event_feed_reads.written_by::xid8, event_feed_reads.seq) < (excluded.written_by::xid8, excluded.seq)`,
);

/** Records that the events feed of `applicationId`/`environment` was read up to `position` (never moves back). */
export async function recordFeedRead(
  db: Db,
  input: { applicationId: string; environment: string; position: { writtenBy: string; seq: string }; readAt: Date },
): Promise<void> {
  await runStatement(db, feedRead, [input.applicationId, input.environment, input.position.writtenBy, input.position.seq, input.readAt.toISOString()]);
}
