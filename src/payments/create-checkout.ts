/**
 * The creation of a hosted checkout session (`POST /api/v1/pay-in/checkout`). The customer picks
 * the rail on the page, so the amount is checked against the widest limits of the application
 * currency's active rails, and CURRENCY_MISMATCH is raised when the currency is not the
 * application's or no active rail carries it; PROVIDER_NOT_FOUND when no such rail can serve the
 * key's environment (LIVE keys without a configured connector). The session (`cs_` + 32 hex) is
 * valid `checkoutTtlMinutes` (30 by default).
 */
import { ApiError } from '../domain/errors.ts';
import { resolveConnector } from '../connectors/registry.ts';
import type { ApiKeyAuth } from '../accounts/api-keys.ts';
import { findApplication } from '../accounts/applications.ts';
import type { Services } from '../services.ts';
import { createOnce, findReplay, idempotencyScope } from './idempotency.ts';
import { insertTransaction } from './insert-transaction.ts';
import { activeRailsForCurrency, checkAmountLimits, checkApplicationCurrency } from './rails.ts';
import { checkoutUrl } from './transaction-view.ts';

/** Validated body of `POST /api/v1/pay-in/checkout`. */
export interface CheckoutInput {
  amount: number;
  currency: string;
  merchantReference?: string | undefined;
  description?: string | undefined;
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
}

/** The 201 `data` of `POST /api/v1/pay-in/checkout`. */
export interface CheckoutData {
  reference: string;
  status: 'PENDING';
  amount: number;
  currency: string;
  description: string | null;
  paymentUrl: string;
}

/** Creates the session; returns the 201 `data` of `POST /api/v1/pay-in/checkout`. */
export async function createCheckout(services: Services, auth: ApiKeyAuth, input: CheckoutInput, idempotencyKey?: string): Promise<CheckoutData> {
  const scope = idempotencyScope(auth.applicationId, idempotencyKey, 'checkout', { ...input });
  const replay = await findReplay<CheckoutData>(services, scope);
  if (replay) return replay;
  checkApplicationCurrency(input.currency, auth.currency);
  const activeRails = await activeRailsForCurrency(services.db, input.currency);
  if (activeRails.length === 0) {
    throw new ApiError('CURRENCY_MISMATCH', { message: `Aucun moyen de paiement actif pour la devise ${input.currency}.` });
  }
  // A session nobody could pay is refused: LIVE keys need a rail with a configured connector.
  const rails = activeRails.filter((r) => resolveConnector(services.connectors, r.code, auth.environment) !== null);
  if (rails.length === 0) throw new ApiError('PROVIDER_NOT_FOUND');
  checkAmountLimits(input.amount, Math.min(...rails.map((r) => r.minAmount)), Math.max(...rails.map((r) => r.maxAmount)));
  const application = await findApplication(services.db, auth.applicationId);
  const now = services.clock.now();
  const expiresAt = new Date(now.getTime() + services.config.checkoutTtlMinutes * 60_000);
  const result = await createOnce<CheckoutData>(services, scope, async (tx) => {
    const token = services.ids.checkoutToken();
    const row = await insertTransaction(
      tx,
      {
        id: services.ids.uuid(),
        reference: services.ids.reference('PAY_IN'),
        applicationId: auth.applicationId,
        direction: 'PAY_IN',
        type: 'CHECKOUT',
        environment: auth.environment,
        amount: input.amount,
        currency: input.currency,
        description: input.description ?? null,
        merchantReference: input.merchantReference ?? null,
        successUrl: input.successUrl ?? application?.successUrl ?? null,
        cancelUrl: input.cancelUrl ?? application?.cancelUrl ?? null,
        checkoutToken: token,
        expiresAt,
        // The poller's only duty for an unpaid session is to expire it.
        nextPollAt: expiresAt,
      },
      now,
    );
    return {
      row,
      data: {
        reference: row.reference,
        status: 'PENDING' as const,
        amount: row.amount,
        currency: row.currency,
        description: row.description,
        paymentUrl: checkoutUrl(services.config.publicBaseUrl, token),
      },
    };
  });
  return result.data;
}
