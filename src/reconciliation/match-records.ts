/**
 * The three-way match of one rail over one period (pure): the operator's records, Kolo's
 * transactions with their postings on the rail's operator float (the ledger), and what the
 * merchant was told (a final event delivered with a 2xx or read in the events feed). A record is
 * matched to a transaction on the operator's transaction id, then on Kolo's reference echoed by
 * the operator, then on amount, currency, direction and time (within `MATCH_WINDOW_MS`). Every
 * mismatch is one case draft whose `caseKey` names it uniquely, so a second run of the same
 * period proposes the same keys and opens nothing new.
 */
import type { OperatorRecord } from '../connectors/statement.ts';
import type { KoloSideRow } from '../db/queries/reconciliation.ts';
import { eventNameFor } from '../webhooks/webhook-events.ts';

/** The kinds of case, one per kind of mismatch. */
export const CASE_KINDS = ['OPERATOR_ONLY', 'KOLO_ONLY', 'STATUS_MISMATCH', 'AMOUNT_MISMATCH', 'MERCHANT_NOT_TOLD', 'BALANCE_DRIFT'] as const;

/** A kind of case. */
export type CaseKind = (typeof CASE_KINDS)[number];

/** How far apart in time a record and a transaction may be to match on amount, currency and direction. */
export const MATCH_WINDOW_MS = 15 * 60_000;

/** How long after a transaction's final state the merchant may still be told (webhook retries) before MERCHANT_NOT_TOLD. */
export const MERCHANT_TOLD_GRACE_MS = 60 * 60_000;

/** A case to open (unless one with its key exists). `amount`: the money in question, ≥ 0, base units. */
export interface CaseDraft {
  caseKey: string;
  kind: CaseKind;
  amount: number;
  currency: string;
  transactionId: string | null;
  applicationId: string | null;
  operatorTransactionId: string | null;
  evidence: CaseEvidence;
}

/** The sides of a case as found, shown side by side to staff. */
export interface CaseEvidence {
  operator: (Omit<OperatorRecord, 'at'> & { at: string }) | null;
  kolo: {
    reference: string;
    direction: string;
    status: string;
    amount: number;
    currency: string;
    operatorTransactionId: string | null;
    /** Σ of its lines on the rail's float: what the ledger says moved (+ in, − out). */
    floatNet: number;
    createdAt: string;
  } | null;
  merchant: { expectedEvent: string | null; toldEvents: string[] } | null;
  /** How the record was matched to the transaction, when it was. */
  matchedBy: 'OPERATOR_TRANSACTION_ID' | 'REFERENCE' | 'AMOUNT_AND_TIME' | null;
}

/** What a match found. */
export interface MatchResult {
  drafts: CaseDraft[];
  /** Operator payment records matched to a transaction. */
  matched: number;
}

const operatorSide = (r: OperatorRecord): CaseEvidence['operator'] => ({ ...r, at: r.at.toISOString() });
const koloSide = (t: KoloSideRow): CaseEvidence['kolo'] => ({
  reference: t.reference,
  direction: t.direction,
  status: t.status,
  amount: t.amount,
  currency: t.currency,
  operatorTransactionId: t.operatorTransactionId,
  floatNet: t.floatNet,
  createdAt: t.createdAt.toISOString(),
});
const merchantSide = (t: KoloSideRow): CaseEvidence['merchant'] => ({ expectedEvent: eventNameFor(t), toldEvents: t.toldEvents });

/**
 * Matches `records` (the operator's, for `railCode` over `period`) with `kolo` (the rail's
 * transactions of the period and those the records name) as of `now`; returns the case drafts.
 */
export function matchRecords(input: {
  railCode: string;
  period: { from: Date; to: Date };
  records: OperatorRecord[];
  kolo: KoloSideRow[];
  now: Date;
  /** The directions the records list (default both): a transaction of another is never KOLO_ONLY. */
  covers?: readonly ('PAY_IN' | 'PAY_OUT')[];
}): MatchResult {
  const { railCode, records, kolo, period, now } = input;
  const covers = input.covers ?? ['PAY_IN', 'PAY_OUT'];
  const drafts: CaseDraft[] = [];
  const byOperatorId = new Map(kolo.filter((t) => t.operatorTransactionId).map((t) => [t.operatorTransactionId!, t]));
  const byReference = new Map(kolo.map((t) => [t.reference, t]));
  const used = new Set<string>();
  let matched = 0;
  const draft = (kind: CaseKind, key: string, amount: number, currency: string, tx: KoloSideRow | null, record: OperatorRecord | null, matchedBy: CaseEvidence['matchedBy']) =>
    drafts.push({
      caseKey: `${kind}:${railCode}:${key}`,
      kind,
      amount,
      currency,
      transactionId: tx?.id ?? null,
      applicationId: tx?.applicationId ?? null,
      operatorTransactionId: record?.operatorTransactionId ?? tx?.operatorTransactionId ?? null,
      evidence: { operator: record ? operatorSide(record) : null, kolo: tx ? koloSide(tx) : null, merchant: tx ? merchantSide(tx) : null, matchedBy },
    });
  const sameWay = (r: OperatorRecord, t: KoloSideRow) => (r.direction === 'IN') === (t.direction === 'PAY_IN');

  /** The transaction a record names, and how it was found. */
  const find = (r: OperatorRecord): { tx: KoloSideRow; by: NonNullable<CaseEvidence['matchedBy']> } | null => {
    const byId = byOperatorId.get(r.operatorTransactionId);
    if (byId) return { tx: byId, by: 'OPERATOR_TRANSACTION_ID' };
    const byRef = r.reference ? byReference.get(r.reference) : undefined;
    if (byRef) return { tx: byRef, by: 'REFERENCE' };
    let best: KoloSideRow | null = null;
    for (const t of kolo) {
      if (used.has(t.id) || t.operatorTransactionId || !sameWay(r, t) || t.amount !== r.amount || t.currency !== r.currency) continue;
      const gap = Math.abs(t.createdAt.getTime() - r.at.getTime());
      if (gap <= MATCH_WINDOW_MS && (!best || gap < Math.abs(best.createdAt.getTime() - r.at.getTime()))) best = t;
    }
    return best ? { tx: best, by: 'AMOUNT_AND_TIME' } : null;
  };

  for (const r of records.filter((x) => x.kind === 'PAYMENT')) {
    const found = find(r);
    if (!found) {
      if (r.status === 'SUCCEEDED') draft('OPERATOR_ONLY', r.operatorTransactionId, r.amount, r.currency, null, r, null);
      continue;
    }
    const { tx, by } = found;
    used.add(tx.id);
    matched++;
    const koloMoved = Math.abs(tx.floatNet);
    const operatorMoved = r.status === 'SUCCEEDED' ? r.amount : 0;
    if ((operatorMoved > 0) !== (koloMoved > 0) || (operatorMoved > 0 && !sameWay(r, tx))) {
      draft('STATUS_MISMATCH', tx.id, Math.max(operatorMoved, koloMoved), tx.currency, tx, r, by);
    } else if (operatorMoved !== koloMoved) {
      draft('AMOUNT_MISMATCH', tx.id, Math.abs(operatorMoved - koloMoved), tx.currency, tx, r, by);
    }
  }

  for (const r of records.filter((x) => x.kind === 'REVERSAL')) {
    const original = (r.reversalOf ? byOperatorId.get(r.reversalOf) : undefined) ?? (r.reference ? byReference.get(r.reference) : undefined);
    // A reversal of money Kolo counts as moved: the ledger still holds it.
    if (original && original.floatNet === 0) continue;
    draft(original ? 'STATUS_MISMATCH' : 'OPERATOR_ONLY', `REVERSAL:${r.operatorTransactionId}`, r.amount, r.currency, original ?? null, r, original ? 'REFERENCE' : null);
  }

  for (const r of records.filter((x) => x.kind === 'ADJUSTMENT')) {
    draft('BALANCE_DRIFT', r.operatorTransactionId, r.amount, r.currency, null, r, null);
  }

  for (const t of kolo) {
    const inPeriod = t.createdAt >= period.from && t.createdAt < period.to;
    if (inPeriod && covers.includes(t.direction) && !used.has(t.id) && t.floatNet !== 0) draft('KOLO_ONLY', t.id, Math.abs(t.floatNet), t.currency, t, null, null);
    const expected = eventNameFor(t);
    const isFinalLongEnough = t.status !== 'PENDING' && now.getTime() - t.updatedAt.getTime() >= MERCHANT_TOLD_GRACE_MS;
    if (expected && isFinalLongEnough && !t.toldEvents.includes(expected)) draft('MERCHANT_NOT_TOLD', t.id, 0, t.currency, t, null, null);
  }
  return { drafts, matched };
}
