/**
 * Ledger accounts: what an account is (its key, kind, currency, normal side, whether it may go
 * below zero) and the naming of Kolo's accounts. The ledger knows holders only as an
 * application id and an environment; it knows nothing of payments.
 *
 * Merchant accounts (per application × environment × currency), all CREDIT-normal (Kolo owes
 * them) and never negative: AVAILABLE (may be paid out), PENDING (collected, not yet settled),
 * RESERVED (held for pay-outs in flight), BATCH_RESERVED (held for the items of approved batch
 * pay-outs not yet sent).
 * Platform accounts (per environment × currency): OPERATOR_FLOAT per rail (DEBIT-normal: money
 * Kolo holds at the operator), FEE_REVENUE, SUSPENSE (unexplained money, e.g. a late success),
 * SUSPENSE_RESERVED (refunds of suspense money in flight), LOSS (DEBIT-normal: money written off
 * by reconciliation, the float's difference with the operator's records; a gain is a credit), and
 * in TEST only SANDBOX_FUNDING (DEBIT-normal: where sandbox balances come from).
 */

/** What the ledger needs to know of an account to post to it (created on first use). */
export interface AccountSpec {
  key: string;
  kind: AccountKind;
  currency: string;
  normalSide: 'DEBIT' | 'CREDIT';
  isNonNegative: boolean;
  applicationId?: string | null;
  environment?: string | null;
}

/** Every kind of account. */
export type AccountKind =
  | 'AVAILABLE'
  | 'PENDING'
  | 'RESERVED'
  | 'BATCH_RESERVED'
  | 'OPERATOR_FLOAT'
  | 'FEE_REVENUE'
  | 'SUSPENSE'
  | 'SUSPENSE_RESERVED'
  | 'LOSS'
  | 'SANDBOX_FUNDING';

/** The change of an account's normal-side balance when a line of `amount` (debit > 0) is posted to it. */
export function accountDelta(spec: Pick<AccountSpec, 'normalSide'>, amount: number): bigint {
  return spec.normalSide === 'DEBIT' ? BigInt(amount) : -BigInt(amount);
}

/** A merchant account of an application in an environment and currency. */
export function merchantAccount(
  applicationId: string,
  environment: string,
  currency: string,
  kind: 'AVAILABLE' | 'PENDING' | 'RESERVED' | 'BATCH_RESERVED',
): AccountSpec {
  return {
    key: `app:${applicationId}:${environment}:${currency}:${kind}`,
    kind,
    currency,
    normalSide: 'CREDIT',
    isNonNegative: true,
    applicationId,
    environment,
  };
}

/** A rail's operator float (DEBIT-normal; may go negative when pay-outs exceed pay-ins). */
export function operatorFloatAccount(railCode: string, environment: string, currency: string): AccountSpec {
  return {
    key: `platform:${environment}:${currency}:OPERATOR_FLOAT:${railCode}`,
    kind: 'OPERATOR_FLOAT',
    currency,
    normalSide: 'DEBIT',
    isNonNegative: false,
    environment,
  };
}

/** A platform account per environment and currency. */
export function platformAccount(
  kind: 'FEE_REVENUE' | 'SUSPENSE' | 'SUSPENSE_RESERVED' | 'LOSS' | 'SANDBOX_FUNDING',
  environment: string,
  currency: string,
): AccountSpec {
  return {
    key: `platform:${environment}:${currency}:${kind}`,
    kind,
    currency,
    normalSide: kind === 'SANDBOX_FUNDING' || kind === 'LOSS' ? 'DEBIT' : 'CREDIT',
    // SUSPENSE_RESERVED only ever holds what SUSPENSE gave it.
    isNonNegative: kind === 'SUSPENSE_RESERVED',
    environment,
  };
}
