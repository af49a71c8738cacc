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
