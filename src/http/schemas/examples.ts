/**
 * Example values of `/openapi.json`, shared by the routes that answer the same objects. They are
 * what a sandbox application sees (XAF, MTN_MOMO_CM, the sandbox's success number); keys and
 * secrets in them are made-up values of the right form, never real ones.
 */

/** Ids of the examples (UUIDs, references). */
export const EXAMPLE_IDS = {
  merchant: '3f0c2a8e-5b7d-4c1e-9a6f-1d2e3f4a5b6c',
  application: 'b4aea0b0-270d-4dab-ac55-b7b12c97b150',
  apiKey: '97274034-2a4a-4224-b112-72d094576028',
  transaction: 'f9cab4c3-ecc9-4270-9037-8f77b19af34c',
  collection: 'a1214a01-f987-481d-8e2b-f74b7b5b5cfc',
  withdrawalAccount: '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f',
  provider: '0b6c1f7e-0001-4000-8000-000000000001',
  staff: '7c8d9e0f-1a2b-4c3d-9e8f-7a6b5c4d3e2f',
  payIn: 'PI-E902FAF36DC3',
  payOut: 'PO-F9C37E83A362',
  refund: 'PO-1C2D3E4F5A6B',
  collectionPayment: 'FC-4A5B6C7D8E9F',
} as const;

/** A charge's status read (`data` of `GET /api/v1/pay-in/check_status/{reference}`), also the body of its events and list items. */
export const EXAMPLE_PAY_IN_STATUS = {
  reference: EXAMPLE_IDS.payIn,
  type: 'CHARGE',
  status: 'SUCCESS',
  amount: 5000,
  currency: 'XAF',
  description: 'Commande 43',
  paymentMethod: 'MTN_MOMO_CM',
  payerAccount: '237677000001',
  payerName: 'Awa Ngono',
  payerEmail: 'awa@example.cm',
  paymentUrl: null,
  failureCode: null,
  failureReason: null,
  feeAmount: 75,
  netAmount: 4925,
  refundedAmount: 0,
  operatorTransactionId: 'SBXE902FAF36DC3',
  lateSuccess: false,
} as const;

/** The charge of `EXAMPLE_PAY_IN_STATUS` as its 201 answers it (`data` of `POST /api/v1/pay-in/charge`). */
export const EXAMPLE_CHARGE_CREATED = {
  reference: EXAMPLE_PAY_IN_STATUS.reference,
  status: 'PENDING',
  amount: EXAMPLE_PAY_IN_STATUS.amount,
  currency: EXAMPLE_PAY_IN_STATUS.currency,
  description: EXAMPLE_PAY_IN_STATUS.description,
  paymentMethod: EXAMPLE_PAY_IN_STATUS.paymentMethod,
  payerAccount: EXAMPLE_PAY_IN_STATUS.payerAccount,
  payerName: EXAMPLE_PAY_IN_STATUS.payerName,
  payerEmail: EXAMPLE_PAY_IN_STATUS.payerEmail,
} as const;

/** A timestamp as the API writes it (server local time, no zone). */
export const EXAMPLE_TIME = '2026-11-20T10:00:00.000';

/** A made-up TEST key of the real form (`sk_test_` + 128 hex characters). */
export const EXAMPLE_API_KEY = `sk_test_${'0123456789abcdef'.repeat(8)}`;
/** A made-up webhook secret of the real form. */
export const EXAMPLE_WEBHOOK_SECRET = `whsec_${'0123456789abcdef'.repeat(4)}`;
/** A made-up access token of JWT form (three base64url parts). */
export const EXAMPLE_ACCESS_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzZjBjMmE4ZSIsInR5cCI6ImFjY2VzcyJ9.c2lnbmF0dXJlLWV4ZW1wbGU';
/** A made-up refresh token. */
export const EXAMPLE_REFRESH_TOKEN = 'rt_0123456789abcdef0123456789abcdef0123456789abcdef';

/** A dashboard transaction (list item), a charge that succeeded. */
export const EXAMPLE_TRANSACTION_ITEM = {
  id: EXAMPLE_IDS.transaction,
  reference: EXAMPLE_IDS.payIn,
  merchantReference: 'CMD-43',
  type: 'CHARGE',
  direction: 'PAY_IN' as const,
  environment: 'TEST' as const,
  amount: 5000,
  feeAmount: 75,
  netAmount: 4925,
  currency: 'XAF',
  status: 'SUCCESS' as const,
  description: 'Commande 43',
  provider: 'MTN_MOMO_CM',
  payerAccount: '237677000001',
  payerName: 'Awa Ngono',
  payerEmail: 'awa@example.cm',
  applicationId: EXAMPLE_IDS.application,
  appName: 'Boutique Awa',
  failureCode: null,
  failureReason: null,
  isLateSuccess: false,
  isInReconciliation: false,
  operatorTransactionId: 'SBXE902FAF36DC3',
  heldAmount: 0,
  queuedForFloat: false,
  refundedAmount: 0,
  createdAt: EXAMPLE_TIME,
  updatedAt: '2026-11-20T10:00:03.000',
  completedAt: '2026-11-20T10:00:03.000',
};

/** A merchant's profile as the dashboard and the administration read it. */
export const EXAMPLE_PROFILE = {
  id: EXAMPLE_IDS.merchant,
  fullName: 'Awa Ngono',
  email: 'awa@boutique.example.cm',
  phone: '+237677000001',
  country: 'CM',
  avatarUrl: null,
  role: 'MERCHANT' as const,
  status: 'ACTIVE' as const,
  kycLevel: 'NONE',
  emailVerified: true,
  phoneVerified: false,
  language: 'fr' as const,
  provider: 'LOCAL' as const,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};

/** An application as the dashboard reads it. */
export const EXAMPLE_APPLICATION = {
  id: EXAMPLE_IDS.application,
  name: 'Boutique Awa',
  description: 'Boutique en ligne de pagnes',
  status: 'ACTIVE',
  currency: 'XAF',
  themeColor: '#0A6E4F',
  logoUrl: null,
  websiteUrl: 'https://boutique.example.cm',
  webhookUrl: 'https://boutique.example.cm/kolo/webhooks',
  successUrl: 'https://boutique.example.cm/merci',
  cancelUrl: 'https://boutique.example.cm/panier',
  activeKeyPrefix: 'sk_test_01234567',
  activeKeyEnvironment: 'TEST' as const,
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};

/** An API key as listed (no secret). */
export const EXAMPLE_API_KEY_VIEW = {
  id: EXAMPLE_IDS.apiKey,
  name: 'Boutique test',
  keyPrefix: 'sk_test_01234567',
  environment: 'TEST' as const,
  active: true,
  scopes: ['COLLECT', 'PAYOUT', 'REFUND', 'READ'] as ('COLLECT' | 'PAYOUT' | 'REFUND' | 'READ')[],
  allowedIps: null as string[] | null,
  lastUsedAt: '2026-11-20T10:05:00.000',
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};

/** A fund collection as the dashboard reads it. */
export const EXAMPLE_COLLECTION = {
  id: EXAMPLE_IDS.collection,
  slug: 'cotisation-6eac9b55',
  collectUrl: 'https://pay.example.cm/collect/cotisation-6eac9b55',
  title: 'Cotisation de novembre',
  description: 'Cotisation mensuelle de la tontine',
  status: 'ACTIVE' as const,
  currency: 'XAF',
  environment: 'TEST' as const,
  amountFixed: true,
  amount: 2000,
  coverImageUrl: null,
  collectCustomerInfo: true,
  thankYouMessage: 'Merci pour votre cotisation !',
  expiresAt: '2026-12-31T23:59:00.000',
  applicationId: EXAMPLE_IDS.application,
  applicationName: 'Boutique Awa',
  createdAt: EXAMPLE_TIME,
  updatedAt: EXAMPLE_TIME,
};

/** A page object of one item. */
export function examplePage<T>(item: T) {
  return { content: [item], totalElements: 1, totalPages: 1, size: 20, number: 0, page: 0, first: true, last: true };
}
