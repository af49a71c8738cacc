/**
 * A simulator's statement: the rows an operator would list or export for reconciliation, built
 * from what the simulator actually did (each movement `record`ed when its money moves, stamped
 * with the simulator's clock then), plus the discrepancies a test plants through `plant` (in
 * process) or `POST /_simulator/plant` (`plantFromBody`): a payment Kolo never asked for, a
 * success of a request Kolo recorded as failed, a reversal after success, an amount difference,
 * a balance adjustment. Each simulator formats the rows its operator's way (Wave's JSON list,
 * MTN's and Orange's CSV exports, Daraja's pull). Test and rehearsal tooling only.
 */
import { randomBytes } from 'node:crypto';

/** A movement a simulator made, as it records it (`SimMovement` of simulator-http.ts has these fields). */
export interface SimMoved {
  reference: string;
  direction: 'PAY_IN' | 'PAY_OUT';
  amount: number;
  currency: string;
  msisdn: string;
  operatorTransactionId: string;
}

/** One statement row. `amount` is signed, base units: positive into the operator wallet Kolo uses. */
export interface SimStatementRow {
  id: string;
  reference: string | null;
  amount: number;
  currency: string;
  msisdn: string;
  at: Date;
  kind: 'PAYMENT' | 'REVERSAL' | 'ADJUSTMENT';
  /** A reversal: the id of the row it reverses. */
  reversalOf: string | null;
}

/** What the simulator knows of a request it processed (whatever its outcome), by our reference. */
export interface SimRequestSummary {
  direction: 'PAY_IN' | 'PAY_OUT';
  amount: number;
  currency: string;
  msisdn: string;
}

/** A discrepancy to plant. */
export type SimPlant =
  | { kind: 'UNASKED_PAYMENT'; amount: number; currency: string; msisdn?: string }
  | { kind: 'SUCCESS_OF'; reference: string }
  | { kind: 'REVERSAL_OF'; reference: string }
  | { kind: 'AMOUNT_OF'; reference: string; amount: number }
  | { kind: 'ADJUSTMENT'; amount: number; currency: string };

/** A simulator's statement. */
export interface SimStatement {
  /**
   * Adds the row of a movement the simulator just made, dated with the simulator's clock; a
   * movement already recorded (same `operatorTransactionId`) is ignored.
   */
  record(moved: SimMoved): void;
  /** Every row, oldest first. */
  rows(): SimStatementRow[];
  /** Plants a discrepancy; returns the row it added or changed. Throws an Error when the reference is unknown. */
  plant(plant: SimPlant): SimStatementRow;
  /** `plant` from a JSON body; an error message instead when the body is not a plant. */
  plantFromBody(body: string): SimStatementRow | { error: string };
}

/**
 * Creates an empty statement; its simulator `record`s each movement as it makes it. `requestOf`
 * says what the simulator processed for a reference; `newId` makes the operator's id of a planted
 * row.
 */
export function createSimStatement(options: {
  requestOf: (reference: string) => SimRequestSummary | null;
  nowMs: () => number;
  newId?: () => string;
}): SimStatement {
  const rows: SimStatementRow[] = [];
  const seen = new Set<string>();
  const newId = options.newId ?? (() => `T${randomBytes(8).toString('hex').toUpperCase()}`);
  const signed = (direction: 'PAY_IN' | 'PAY_OUT', amount: number) => (direction === 'PAY_IN' ? amount : -amount);

  const record = (m: SimMoved) => {
    if (seen.has(m.operatorTransactionId)) return;
    seen.add(m.operatorTransactionId);
    rows.push({
      id: m.operatorTransactionId,
      reference: m.reference,
      amount: signed(m.direction, m.amount),
      currency: m.currency,
      msisdn: m.msisdn,
      at: new Date(options.nowMs()),
      kind: 'PAYMENT',
      reversalOf: null,
    });
  };
  const paymentOf = (reference: string) => rows.find((r) => r.kind === 'PAYMENT' && r.reference === reference);

  const plant = (p: SimPlant): SimStatementRow => {
    const at = new Date(options.nowMs());
    if (p.kind === 'UNASKED_PAYMENT' || p.kind === 'ADJUSTMENT') {
      const row: SimStatementRow = {
        id: newId(),
        reference: null,
        amount: p.amount,
        currency: p.currency,
        msisdn: p.kind === 'UNASKED_PAYMENT' ? (p.msisdn ?? '000000000') : '',
        at,
        kind: p.kind === 'ADJUSTMENT' ? 'ADJUSTMENT' : 'PAYMENT',
        reversalOf: null,
      };
      rows.push(row);
      return row;
    }
    if (p.kind === 'SUCCESS_OF') {
      const request = options.requestOf(p.reference);
      if (!request) throw new Error(`no request with reference ${p.reference}`);
      const row: SimStatementRow = { id: newId(), reference: p.reference, amount: signed(request.direction, request.amount), currency: request.currency, msisdn: request.msisdn, at, kind: 'PAYMENT', reversalOf: null };
      seen.add(row.id);
      rows.push(row);
      return row;
    }
    const paid = paymentOf(p.reference);
    if (!paid) throw new Error(`no movement with reference ${p.reference}`);
    if (p.kind === 'AMOUNT_OF') {
      paid.amount = Math.sign(paid.amount) * p.amount;
      return paid;
    }
    const row: SimStatementRow = { id: newId(), reference: paid.reference, amount: -paid.amount, currency: paid.currency, msisdn: paid.msisdn, at, kind: 'REVERSAL', reversalOf: paid.id };
    rows.push(row);
    return row;
  };

  return {
    record,
    rows: () => [...rows],
    plant,
    plantFromBody(body: string) {
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        return { error: 'expected a JSON body' };
      }
      const v = value as Partial<Record<string, unknown>>;
      const isAmount = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x !== 0;
      const ok =
        ((v.kind === 'UNASKED_PAYMENT' || v.kind === 'ADJUSTMENT') && isAmount(v.amount) && typeof v.currency === 'string') ||
        ((v.kind === 'SUCCESS_OF' || v.kind === 'REVERSAL_OF') && typeof v.reference === 'string') ||
        (v.kind === 'AMOUNT_OF' && typeof v.reference === 'string' && isAmount(v.amount));
      if (!ok) return { error: 'expected {kind: UNASKED_PAYMENT|ADJUSTMENT, amount, currency} | {kind: SUCCESS_OF|REVERSAL_OF, reference} | {kind: AMOUNT_OF, reference, amount}' };
      try {
        return plant(v as SimPlant);
      } catch (e) {
        return { error: (e as Error).message };
      }
    },
  };
}
