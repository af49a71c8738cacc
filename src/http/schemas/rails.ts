/**
 * Schemas of the merchant API's rail reads with an API key: number resolution. They validate
 * requests (400 VALIDATION_ERROR naming the field) and generate `/openapi.json`.
 */
import { z } from 'zod';
import { fr, requiredText } from './common.ts';
import { documentedEnum } from './openapi.ts';

/** The problems number resolution names (`domain/msisdn.ts`). */
export const NUMBER_PROBLEMS = ['NOT_A_NUMBER', 'COUNTRY_REQUIRED', 'INVALID_NUMBER', 'COUNTRY_MISMATCH', 'NOT_MOBILE', 'BENIN_OLD_NUMBER_PLAN'] as const;

/** An ISO 3166 alpha-2 country code. */
export const countrySchema = z
  .string()
  .regex(/^[A-Z]{2}$/, fr('doit être un code de pays ISO 3166 alpha-2 en majuscules (ex. CM)'))
  .describe('Code de pays ISO 3166 alpha-2');

/** Body of `POST /api/v1/numbers/resolve`. */
export const resolveNumberBody = z.object({
  number: requiredText(40).describe("Le numéro sous toute forme courante : +237 6 77 00 01 00, 00237…, 237…, ou national (0…, 6…) avec country"),
  country: countrySchema
    .nullish()
    .transform((v) => v ?? undefined)
    .describe('Pays où lire un numéro écrit au format national ; sinon le pays que le numéro doit avoir'),
});

/** A rail a resolved number belongs to. */
export const numberRail = z.object({
  code: z.string().describe('Code du moyen de paiement (paymentMethod), ex. MTN_MOMO_CM'),
  name: z.string(),
  operator: z.string(),
  currency: z.string(),
  isUsable: z.boolean().describe("Vrai quand l'application de la clé peut l'utiliser : sa devise, et un connecteur dans l'environnement de la clé"),
});

/** `POST /api/v1/numbers/resolve` data. */
export const numberResolutionData = z.object({
  input: z.string().describe('Le numéro tel que reçu'),
  isValid: z.boolean(),
  e164: z.string().nullable().describe('Forme E.164 (+ et chiffres) ; null si le numéro est invalide'),
  msisdn: z.string().nullable().describe('Chiffres E.164 sans +, tels que payerAccount et beneficiaryAccount les prennent'),
  country: z.string().nullable().describe('Pays du numéro (ISO 3166 alpha-2), aussi pour un numéro invalide quand il est connu'),
  nationalNumber: z.string().nullable(),
  operator: z.string().nullable().describe("L'opérateur dont le numéro porte un préfixe ; null quand le plan du pays ne le dit pas"),
  rails: z.array(numberRail).describe("Les moyens de paiement actifs du pays du numéro sur le réseau de son opérateur (tous ceux du pays quand son plan n'est pas connu)"),
  problem: documentedEnum(NUMBER_PROBLEMS).nullable().describe('Pourquoi le numéro est inutilisable ; null s’il est valide'),
  message: z.string().nullable().describe('Le problème expliqué en français'),
  suggestedE164: z.string().nullable().describe('Le numéro à utiliser à la place (Bénin : forme à 10 chiffres d’un ancien numéro)'),
});

/** The availability statuses, documented. */
const availabilityStatus = documentedEnum(['OPERATIONAL', 'DELAYED', 'CLOSED']);

/** One operation of a rail in the configuration. */
const operationConfiguration = z.object({
  minAmount: z.number().int().describe('Montant minimal, unités de base, inclus'),
  maxAmount: z.number().int().describe('Montant maximal, unités de base, inclus'),
  availability: availabilityStatus.describe('OPERATIONAL, DELAYED (réponses lentes ou en erreur ; les virements attendent) ou CLOSED'),
});

/** A rail in `GET /api/v1/configuration`. */
export const railConfiguration = z.object({
  code: z.string().describe('Code du moyen de paiement (paymentMethod)'),
  name: z.string(),
  operator: z.string(),
  country: z.string().describe('ISO 3166 alpha-2'),
  currency: z.string(),
  decimals: z.number().int().describe("Décimales entre l'unité de base des montants et l'unité de la devise : 0 pour XAF, XOF, UGX ; 2 pour GHS (1250 = 12,50 GHS)"),
  authorization: documentedEnum(['PIN_PROMPT', 'REDIRECT', 'OTP']).describe(
    'Comment le client valide un paiement : PIN_PROMPT (invite sur le téléphone, code PIN), REDIRECT (page ou application de l’opérateur), OTP (code à usage unique)',
  ),
  instructions: z.object({ fr: z.string().nullable(), en: z.string().nullable() }).describe('Ce que fait le client pour valider, en français et en anglais'),
  payIn: operationConfiguration.describe('Paiements (encaissements)'),
  payOut: operationConfiguration.describe('Virements'),
});

/** `GET /api/v1/configuration` data. */
export const configurationData = z.object({
  applicationId: z.string(),
  environment: z.enum(['LIVE', 'TEST']).describe('Celui de la clé'),
  currency: z.string().describe("La devise de l'application"),
  rails: z.array(railConfiguration).describe("Les moyens de paiement actifs que l'application peut utiliser avec cette clé (sa devise, un connecteur dans l'environnement de la clé)"),
});

/** One rail and direction in the staff's availability list. */
export const railAvailabilityData = z.object({
  providerCode: z.string(),
  direction: z.enum(['PAY_IN', 'PAY_OUT']),
  status: availabilityStatus,
  source: z.enum(['OBSERVED', 'OVERRIDE']).describe('OBSERVED : calculé du trafic ; OVERRIDE : fixé par le personnel'),
  observedStatus: availabilityStatus.describe('Le statut que donne le trafic seul'),
  traffic: z.object({
    sampleSize: z.number().int().describe('Transactions envoyées à l’opérateur dans la fenêtre'),
    errorCount: z.number().int().describe('Sans réponse nette (délai, 5xx) ou échouées du fait de l’opérateur'),
    slowCount: z.number().int().describe('Plus de 2 minutes entre l’envoi et le statut final, ou encore en attente après 2 minutes'),
  }),
  override: z
    .object({ status: availabilityStatus, reason: z.string().nullable(), setBy: z.string().nullable(), setAt: z.string() })
    .nullable(),
});

/** Body of `PUT /api/v1/admin/rails/{code}/availability/{direction}`. */
export const availabilityOverrideBody = z.object({
  status: z.enum(['OPERATIONAL', 'DELAYED', 'CLOSED']),
  reason: z
    .string()
    .trim()
    .max(255)
    .nullish()
    .transform((v) => v || undefined)
    .describe('Pourquoi (visible du personnel seulement)'),
});

/** Path of the availability override routes. */
export const availabilityOverrideParams = z.object({
  code: z.string().max(64).describe('Code du moyen de paiement'),
  direction: z.enum(['PAY_IN', 'PAY_OUT']),
});
