/**
 * Request and response schemas of the merchant payment API: checkout, charge, transfer and the
 * pay-in and pay-out status reads. The same zod schemas validate requests and generate
 * `/openapi.json`.
 */
import { z } from 'zod';
import { TRANSACTION_STATUSES } from '../../domain/transaction-state.ts';
import { FAILURE_CODES } from '../../connectors/connector.ts';
import { EXAMPLE_IDS } from './examples.ts';
import { amountSchema, currencySchema, fr, lenientEmail, optionalEmail, optionalHttpUrl, optionalText, requiredText } from './common.ts';

/** Digits with an optional leading `+` and common separators; validity per country is checked against the rail. */
const MSISDN_SHAPE = /^[+0-9][0-9 ().-]{3,29}$/;
const PHONE_MESSAGE = fr("doit être un numéro de téléphone (ex. 237677000001)");

/** Body of `POST /api/v1/pay-in/checkout` (create a hosted checkout session). Unknown fields are ignored. */
export const checkoutRequest = z
  .object({
    amount: amountSchema,
    currency: currencySchema,
    merchantReference: optionalText(255),
    description: optionalText(255),
    successUrl: optionalHttpUrl(500),
    cancelUrl: optionalHttpUrl(500),
  })
  .meta({
    examples: [
      {
        amount: 5000,
        currency: 'XAF',
        merchantReference: 'CMD-42',
        description: 'Commande 42',
        successUrl: 'https://boutique.example.cm/merci',
        cancelUrl: 'https://boutique.example.cm/panier',
      },
    ],
  });

/**
 * A rail's provider code. Not an enum: rails are rows an administrator adds
 * (`POST /api/v1/admin/providers`); `GET /api/v1/merchants/providers` lists those usable.
 */
const paymentMethod = requiredText(100).describe(
  'Code du moyen de paiement (rail) : opérateur puis pays ISO 3166, ex. MTN_MOMO_CM, ORANGE_MONEY_CM, WAVE_SN, MPESA_KE. La liste est celle des rails actifs (GET /api/v1/merchants/providers)',
);

/** Body of `POST /api/v1/pay-in/charge` (direct charge of a phone number). */
export const chargeRequest = z
  .object({
    amount: amountSchema,
    currency: currencySchema,
    paymentMethod,
    payerAccount: requiredText(100).regex(MSISDN_SHAPE, PHONE_MESSAGE).describe('Numéro à débiter: 237…, +237…, 00237… ou national'),
    merchantReference: optionalText(255),
    description: optionalText(255),
    payerName: optionalText(255),
    payerEmail: lenientEmail,
    idempotencyKey: optionalText(100).describe("Clé d'idempotence (comme l'en-tête Idempotency-Key)"),
  })
  .meta({
    examples: [
      {
        amount: 5000,
        currency: 'XAF',
        paymentMethod: 'MTN_MOMO_CM',
        payerAccount: '237677000001',
        merchantReference: 'CMD-43',
        description: 'Commande 43',
        payerName: 'Awa Ngono',
        payerEmail: 'awa@example.cm',
        idempotencyKey: 'commande-43-paiement-1',
      },
    ],
  });

/** Body of `POST /api/v1/pay-out/transfer` (pay-out transfer). */
export const transferRequest = z.object({
  amount: amountSchema,
  currency: currencySchema,
  paymentMethod,
  beneficiaryAccount: requiredText(100).regex(MSISDN_SHAPE, PHONE_MESSAGE).describe('Numéro à créditer: 237…, +237…, 00237… ou national'),
  beneficiaryName: requiredText(255),
  beneficiaryEmail: optionalEmail,
  merchantReference: optionalText(255),
  description: optionalText(255),
});

/** An example transfer body (sandbox number, XAF). */
export const TRANSFER_EXAMPLE = {
  amount: 10000,
  currency: 'XAF',
  paymentMethod: 'MTN_MOMO_CM',
  beneficiaryAccount: '237677000002',
  beneficiaryName: 'Jean Mbarga',
  beneficiaryEmail: 'jean@example.cm',
  merchantReference: 'PAIE-11',
  description: 'Salaire novembre',
};

/** The 201 answer's `data` to `TRANSFER_EXAMPLE` (merchant API and dashboard). */
export const EXAMPLE_TRANSFER_CREATED = {
  reference: EXAMPLE_IDS.payOut,
  status: 'PENDING' as const,
  amount: TRANSFER_EXAMPLE.amount,
  currency: TRANSFER_EXAMPLE.currency,
  description: TRANSFER_EXAMPLE.description,
  paymentMethod: TRANSFER_EXAMPLE.paymentMethod,
  beneficiaryAccount: TRANSFER_EXAMPLE.beneficiaryAccount,
  beneficiaryName: TRANSFER_EXAMPLE.beneficiaryName,
  beneficiaryEmail: TRANSFER_EXAMPLE.beneficiaryEmail,
};

/** `transferRequest` with its example, as the merchant API documents it. */
export const transferRequestWithExample = transferRequest.meta({ examples: [TRANSFER_EXAMPLE] });

/** Path parameter of the status endpoints; a malformed one is an INVALID_PARAMETER. */
export const referenceParams = z.object({
  reference: z
    .string()
    .max(64, fr('doit contenir au plus 64 caractères'))
    .regex(/^[A-Za-z0-9_-]+$/, fr('doit être une référence de transaction (ex. PI-0123456789AB)')),
});

const status = z.enum(TRANSACTION_STATUSES).describe('PENDING, puis SUCCESS, FAILED ou CANCELLED (définitifs) ; REFUNDED une fois remboursé en totalité');

/** `data` of the checkout session's 201. */
export const checkoutData = z.object({
  reference: z.string(),
  status: z.literal('PENDING'),
  amount: z.number(),
  currency: z.string(),
  description: z.string().nullable(),
  paymentUrl: z.string(),
});

/** `data` of the direct charge's 201. */
export const chargeData = z.object({
  reference: z.string(),
  status: z.literal('PENDING'),
  amount: z.number(),
  currency: z.string(),
  description: z.string().nullable(),
  paymentMethod: z.string().nullable(),
  payerAccount: z.string().nullable(),
  payerName: z.string().nullable(),
  payerEmail: z.string().nullable(),
  redirectUrl: z
    .string()
    .optional()
    .describe(
      "Extension de Kolo (hors spécification 4.2) : présent uniquement sur les moyens de paiement à redirection (Wave). Le client doit ouvrir cette adresse (page ou application de l'opérateur) pour payer. Jamais présent sur les moyens de paiement à notification (USSD, STK).",
    ),
});

/** `data` of the transfer's 201. */
export const transferData = z.object({
  reference: z.string(),
  status: z.literal('PENDING'),
  amount: z.number(),
  currency: z.string(),
  description: z.string().nullable(),
  paymentMethod: z.string().nullable(),
  beneficiaryAccount: z.string().nullable(),
  beneficiaryName: z.string().nullable(),
  beneficiaryEmail: z.string().nullable(),
});

const failureFields = {
  failureCode: z
    .string()
    .nullable()
    .describe(`Cause d'un échec, l'une de : ${FAILURE_CODES.join(', ')} ; null sinon`),
  failureReason: z.string().nullable(),
};

const moneyFields = {
  feeAmount: z.number().nullable().describe('Frais Kolo (unités de base) ; null tant qu’ils ne sont pas fixés (un paiement : au succès)'),
  netAmount: z
    .number()
    .nullable()
    .describe('Paiement : montant crédité au marchand (montant − frais). Virement : montant débité du solde (montant + frais).'),
};

const operatorFields = {
  operatorTransactionId: z
    .string()
    .nullable()
    .describe("Extension : identifiant de l'opérateur pour ce mouvement d'argent (celui du SMS du client) ; null tant qu'il ne l'a pas donné"),
  lateSuccess: z
    .boolean()
    .describe("Extension : true si l'opérateur a déplacé l'argent après la clôture de la transaction (le statut ne change pas)"),
  reconciliation: z
    .enum(['IN_REVIEW'])
    .optional()
    .describe("Extension : présent (IN_REVIEW) seulement tant qu'un écart de rapprochement avec l'opérateur est ouvert sur cette transaction ; le statut ne change pas"),
};

/** `data` of the pay-in status read (`GET /api/v1/pay-in/check_status/{reference}`), with the money fields and the operator's extension fields. */
export const payInStatusData = z.object({
  reference: z.string(),
  type: z.enum(['CHECKOUT', 'CHARGE', 'FUND_COLLECTION']),
  status,
  amount: z.number(),
  currency: z.string(),
  description: z.string().nullable(),
  paymentMethod: z.string().nullable(),
  payerAccount: z.string().nullable(),
  payerName: z.string().nullable(),
  payerEmail: z.string().nullable(),
  paymentUrl: z.string().nullable(),
  ...failureFields,
  ...moneyFields,
  refundedAmount: z.number().describe('Somme des remboursements réussis (unités de base)'),
  ...operatorFields,
});

/** `data` of the pay-out status read (`GET /api/v1/pay-out/check_status/{reference}`). */
export const payOutStatusData = z.object({
  reference: z.string(),
  status,
  amount: z.number(),
  currency: z.string(),
  description: z.string().nullable(),
  paymentMethod: z.string().nullable(),
  beneficiaryAccount: z.string().nullable(),
  beneficiaryName: z.string().nullable(),
  beneficiaryEmail: z.string().nullable(),
  ...failureFields,
  ...moneyFields,
  ...operatorFields,
  heldAmount: z
    .number()
    .describe(
      "Extension : montant + frais encore réservés sur le solde tant que l'opérateur n'a pas répondu définitivement (en cours, ou FAILED TIMEOUT sans réponse) ; 0 ensuite",
    ),
  queuedForFloat: z
    .boolean()
    .describe(
      "Extension : true tant que le virement (PENDING) attend en file d'attente que le float de l'opérateur le couvre ; il n'est pas encore envoyé et peut être annulé (POST /api/v1/pay-out/{reference}/cancel)",
    ),
});
