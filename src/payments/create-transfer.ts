/**
 * The pay-out transfer (`POST /api/v1/pay-out/transfer`) to a phone number. Same checks as a
 * charge. The interface defines no deduplication for transfers; Kolo adds the optional
 * `Idempotency-Key` header so a retried transfer cannot send money twice. Funded: amount + fee is
 * reserved from the merchant's available balance as the transfer is written, before anything is
 * sent to the operator (insert-funded-pay-out.ts); without enough, 400 INSUFFICIENT_BALANCE and
 * nothing is written or sent.
 */
import { validationError } from '../domain/errors.ts';
import { normalizeMsisdn } from '../domain/msisdn.ts';
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import type { Services } from '../services.ts';
import { createOnceAlone, findReplay, idempotencyScope } from './idempotency.ts';
import { initiateTransaction } from './initiate-transaction.ts';
import { resolveRailFor } from './rails.ts';
import { computeFee, railTermsFor } from './fees.ts';
import { createFundedPayOut, type FundedPayOut } from './insert-funded-pay-out.ts';
import { payOutFields, type TransactionRow } from './transaction-view.ts';

/** Validated body of `POST /api/v1/pay-out/transfer`. */
export interface TransferInput {
  amount: number;
  currency: string;
  paymentMethod: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  beneficiaryEmail?: string | undefined;
  merchantReference?: string | undefined;
  description?: string | undefined;
}

/** The 201 `data` of `POST /api/v1/pay-out/transfer`. */
export interface TransferData {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentMethod: string | null;
  beneficiaryAccount: string | null;
  beneficiaryName: string | null;
  beneficiaryEmail: string | null;
}

/** What a transfer of an amount costs, before it is sent (base units of `currency`). */
export interface TransferFee {
  amount: number;
  feeAmount: number;
  /** amount + feeAmount: what leaves the available balance. */
  totalAmount: number;
  currency: string;
  paymentMethod: string;
}

/**
 * The fee `createTransfer` would take for this transfer now (the merchant's override of the
 * rail's pay-out fee, else the rail's), after the same rail checks (currency, active provider,
 * limits; their errors). Reads only.
 */
export async function transferFee(
  services: Services,
  auth: Pick<ApiKeyAuth, 'applicationId' | 'currency' | 'environment'>,
  input: Pick<TransferInput, 'amount' | 'currency' | 'paymentMethod'>,
): Promise<TransferFee> {
  const { rail, feeAmount } = await priceTransfer(services, auth, input);
  return { amount: input.amount, feeAmount, totalAmount: input.amount + feeAmount, currency: input.currency, paymentMethod: rail.code };
}

/**
 * The rail of a transfer, after its checks (currency, active provider, limits; their errors),
 * with its connector and the fee it takes (base units): the application's override of the
 * rail's pay-out fee, else the rail's.
 */
async function priceTransfer(
  services: Services,
  auth: Pick<ApiKeyAuth, 'applicationId' | 'currency' | 'environment'>,
  input: Pick<TransferInput, 'amount' | 'currency' | 'paymentMethod'>,
) {
  const resolved = await resolveRailFor(services, {
    paymentMethod: input.paymentMethod,
    currency: input.currency,
    amount: input.amount,
    applicationCurrency: auth.currency,
    environment: auth.environment,
  });
  const terms = await railTermsFor(services.db, resolved.rail.code, 'PAY_OUT', auth.applicationId);
  return { ...resolved, feeAmount: computeFee(input.amount, terms.rule, 'PAY_OUT') };
}

/** The 201 `data` of a new transfer. */
function transferData(row: TransactionRow): TransferData {
  return { reference: row.reference, status: 'PENDING', ...payOutFields(row) };
}

/**
 * Creates the transfer from `auth`'s application and environment (an API key's, or the
 * dashboard's choice for one of the merchant's applications); returns the 201 `data` of
 * `POST /api/v1/pay-out/transfer`.
 */
export async function createTransfer(
  services: Services,
  auth: Pick<ApiKeyAuth, 'applicationId' | 'currency' | 'environment'>,
  input: TransferInput,
  idempotencyKey?: string,
): Promise<TransferData> {
  const scope = idempotencyScope(auth.applicationId, idempotencyKey, 'transfer', { ...input });
  const replay = await findReplay<TransferData>(services, scope);
  if (replay) return replay;
  const { rail, connector, feeAmount } = await priceTransfer(services, auth, input);
  const beneficiaryAccount = normalizeMsisdn(input.beneficiaryAccount, rail.country);
  if (!beneficiaryAccount) {
    throw validationError({ beneficiaryAccount: `n'est pas un numéro de téléphone valide (${rail.country})` });
  }
  const payOut: FundedPayOut = {
    applicationId: auth.applicationId,
    environment: auth.environment,
    type: null,
    amount: input.amount,
    feeAmount,
    currency: input.currency,
    railCode: rail.code,
    beneficiaryAccount,
    beneficiaryName: input.beneficiaryName,
    beneficiaryEmail: input.beneficiaryEmail ?? null,
    merchantReference: input.merchantReference ?? null,
    description: input.description ?? null,
  };
  // The pay-out, its reservation and the key's claim are written by one statement of their own.
  const result = await createOnceAlone<TransferData>(services, scope, async (key) => {
    const row = await createFundedPayOut(services, payOut, key ? { ...key, responseOf: transferData } : undefined);
    return row && { row, data: transferData(row) };
  });
  if (!result.replayed) await initiateTransaction(services, result.row, rail, connector);
  return result.data;
}
