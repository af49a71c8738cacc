/**
 * The balance of the application an API key belongs to, in the key's environment: the same
 * ledger read as the dashboard's balance (`merchantBalances`), so a TEST application that never
 * moved money shows its sandbox opening balance.
 */
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import type { Environment } from '../connectors/registry.ts';
import type { Services } from '../services.ts';
import { merchantBalances } from './merchant-balances.ts';

/** `GET /api/v1/balance` data: amounts in the currency's base unit. */
export interface ApplicationBalance {
  applicationId: string;
  environment: Environment;
  currency: string;
  /** What the merchant may pay out or withdraw now. */
  availableAmount: number;
  /** Pay-ins received, not yet available. */
  pendingAmount: number;
  /** Held by pay-outs still waiting for the operator's answer. */
  reservedAmount: number;
}

/** The balance of `auth`'s application in `auth`'s environment and its currency, read from the ledger. */
export async function readApplicationBalance(services: Services, auth: ApiKeyAuth): Promise<ApplicationBalance> {
  const lines = await merchantBalances(services, auth.merchantId, { environment: auth.environment, applicationId: auth.applicationId });
  const line = lines.find((l) => l.currency === auth.currency);
  return {
    applicationId: auth.applicationId,
    environment: auth.environment,
    currency: auth.currency,
    availableAmount: line?.availableAmount ?? 0,
    pendingAmount: line?.pendingAmount ?? 0,
    reservedAmount: line?.reservedAmount ?? 0,
  };
}
