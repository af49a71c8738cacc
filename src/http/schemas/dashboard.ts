/**
 * Request and response schemas of the dashboard API (the routes SharePay's dashboard calls). They
 * validate requests and generate `/openapi.json`. Timestamps are shown like the envelope's:
 * ISO 8601 server local time, no zone.
 */
import { z } from 'zod';
import { formatLocalTimestamp } from '../../domain/clock.ts';
import { LANGUAGES } from '../../dashboard/accounts.ts';
import { ACCOUNT_STATUSES } from '../../dashboard/admin.ts';
import { ALLOWED_IPS_MAX, API_KEY_SCOPES, normaliseCidr } from '../../accounts/api-keys.ts';
import { documentedEnum } from './openapi.ts';
import { canonicalTimeZone, TIME_ZONE_MESSAGE } from '../../dashboard/reader-days.ts';
import { currencySchema, fr, optionalHttpUrl, optionalText, requiredText, uuidParam } from './common.ts';

/** Formats a date like the envelope timestamp; null stays null. */
export function ts(date: Date): string;
export function ts(date: Date | null): string | null;
export function ts(date: Date | null): string | null {
  return date ? formatLocalTimestamp(date) : null;
}

const email = z.string().trim().max(255).email(fr('doit être une adresse e-mail valide'));
/** New passwords: 8 to 128 characters (OWASP ASVS 2.1.1/2.1.2). */
const newPassword = z.string().min(8).max(128);
const otp = z.string().regex(/^\d{6}$/, fr('doit être un code de 6 chiffres'));
const phone = z.string().trim().regex(/^\+?[0-9 ]{6,20}$/, fr('doit être un numéro de téléphone valide'));
const country = z.string().regex(/^[A-Z]{2}$/, fr('doit être un code pays ISO 3166 alpha-2 (ex. CM)'));

const EXAMPLE_EMAIL = 'awa@boutique.example.cm';
const EXAMPLE_PASSWORD = 'Mot-de-passe-exemple-42';

export const registerRequest = z
  .object({
    fullName: requiredText(255),
    email,
    phone,
    password: newPassword,
    country,
  })
  .meta({ examples: [{ fullName: 'Awa Ngono', email: EXAMPLE_EMAIL, phone: '+237677000001', password: EXAMPLE_PASSWORD, country: 'CM' }] });
export const emailOtpRequest = z.object({ email, otp }).meta({ examples: [{ email: EXAMPLE_EMAIL, otp: '123456' }] });
export const emailRequest = z.object({ email }).meta({ examples: [{ email: EXAMPLE_EMAIL }] });
export const loginRequest = z
  .object({
    email,
    password: z.string().min(1).max(1024),
    otp: z.string().trim().max(10).optional().describe("Code à 6 chiffres de l'application d'authentification (comptes à deux facteurs)"),
    recoveryCode: z.string().trim().max(20).optional().describe('Un code de secours, à usage unique, à la place de otp'),
  })
  .meta({ examples: [{ email: EXAMPLE_EMAIL, password: EXAMPLE_PASSWORD }] });
export const refreshRequest = z.object({ refreshToken: z.string().min(1).max(200) });
/** Body of refresh and logout: the token may instead come from the web app's httpOnly cookie. */
export const sessionRefreshRequest = z
  .object({
    refreshToken: refreshRequest.shape.refreshToken.optional().describe('Absent : celui du cookie kolo_refresh'),
  })
  .meta({ examples: [{ refreshToken: 'rt_0123456789abcdef0123456789abcdef0123456789abcdef' }] });
export const resetRequest = z
  .object({ resetToken: z.string().min(1).max(200), newPassword })
  .meta({ examples: [{ resetToken: 'rst_0123456789abcdef0123456789abcdef', newPassword: 'Nouveau-mot-de-passe-43' }] });
export const changePasswordRequest = z
  .object({ currentPassword: z.string().min(1).max(1024), newPassword })
  .meta({ examples: [{ currentPassword: EXAMPLE_PASSWORD, newPassword: 'Nouveau-mot-de-passe-43' }] });
export const profileUpdateRequest = z
  .object({
    fullName: requiredText(255).optional(),
    phone: phone.nullish(),
    country: country.nullish(),
    avatarUrl: optionalHttpUrl(500),
    language: z.enum(LANGUAGES).optional().describe('Langue du tableau de bord : fr ou en'),
  })
  .meta({ examples: [{ fullName: 'Awa Ngono', phone: '+237677000001', country: 'CM', language: 'fr' }] });

const ROLES = ['MERCHANT', 'ADMIN', 'SUPPORT', 'MEMBER'] as const;

export const userData = z.object({
  accountId: z.string(),
  email: z.string(),
  fullName: z.string(),
  role: documentedEnum(ROLES),
  status: documentedEnum(ACCOUNT_STATUSES),
  kycLevel: z.string(),
});
export const loginData = z.object({ accessToken: z.string(), refreshToken: z.string(), user: userData });
export const tokenPairData = z.object({ accessToken: z.string(), refreshToken: z.string() });
export const resetTokenData = z.object({ resetToken: z.string() });
export const profileData = z.object({
  id: z.string(),
  fullName: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  country: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  role: documentedEnum(ROLES),
  status: documentedEnum(ACCOUNT_STATUSES),
  kycLevel: z.string(),
  emailVerified: z.boolean(),
  phoneVerified: z.boolean(),
  language: z.enum(LANGUAGES).nullable().describe('Langue du tableau de bord choisie (fr ou en) ; null tant que rien n’est choisi'),
  provider: z.enum(['LOCAL', 'GOOGLE', 'GITHUB']).describe('Mode de connexion : LOCAL (e-mail et mot de passe) pour tout compte Kolo'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/**
 * The signed-in account's own profile (`GET`/`PATCH /api/v1/merchants/me`): the profile plus the
 * server's time zone, so that a client reads the API's zone-less timestamps (server local time)
 * as instants.
 */
export const meData = profileData.extend({
  serverTimeZone: z
    .string()
    .describe('Fuseau horaire IANA du serveur (ex. Africa/Douala) : les dates sans fuseau des réponses sont à lire dans ce fuseau'),
});

const themeColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, fr('doit être une couleur hexadécimale (ex. #1A2B3C)'));

export const appCreateRequest = z
  .object({
  name: requiredText(100),
  description: optionalText(500),
  logoUrl: optionalHttpUrl(500),
  websiteUrl: optionalHttpUrl(500),
  themeColor: themeColor.nullish().transform((v) => v ?? undefined),
  currency: currencySchema,
  webhookUrl: optionalHttpUrl(500),
  successUrl: optionalHttpUrl(500),
  cancelUrl: optionalHttpUrl(500),
  })
  .meta({
    examples: [
      {
        name: 'Boutique Awa',
        description: 'Boutique en ligne de pagnes',
        websiteUrl: 'https://boutique.example.cm',
        themeColor: '#0A6E4F',
        currency: 'XAF',
        webhookUrl: 'https://boutique.example.cm/kolo/webhooks',
        successUrl: 'https://boutique.example.cm/merci',
        cancelUrl: 'https://boutique.example.cm/panier',
      },
    ],
  });
/** Update: every field but currency; an explicit null clears an optional field. */
export const appUpdateRequest = z.object({
  name: requiredText(100).optional(),
  description: z.string().max(500).nullable().optional(),
  logoUrl: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue')).nullable().optional(),
  websiteUrl: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue')).nullable().optional(),
  themeColor: themeColor.nullable().optional(),
  webhookUrl: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue')).nullable().optional(),
  successUrl: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue')).nullable().optional(),
  cancelUrl: z.string().max(500).regex(/^https?:\/\/[^\s]+$/i, fr('doit être une URL http(s) absolue')).nullable().optional(),
  status: z.enum(['ACTIVE', 'INACTIVE']).optional(),
}).meta({ examples: [{ description: 'Boutique en ligne de pagnes et de bijoux', webhookUrl: 'https://boutique.example.cm/kolo/webhooks' }] });
export const appData = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.string(),
  currency: z.string(),
  themeColor: z.string().nullable(),
  logoUrl: z.string().nullable(),
  websiteUrl: z.string().nullable(),
  webhookUrl: z.string().nullable(),
  plainTextWebhookSecret: z.string().optional().describe('Seulement dans la réponse de création'),
  successUrl: z.string().nullable(),
  cancelUrl: z.string().nullable(),
  activeKeyPrefix: z.string().nullable(),
  activeKeyEnvironment: z.enum(['LIVE', 'TEST']).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** `{id}` of the dashboard routes. */
export const idParams = z.object({ id: uuidParam });
/** `{id}` of an application. */
export const appIdParams = idParams;
/** `{appId}` of the key and webhook routes. */
export const appIdKeyParams = z.object({ appId: uuidParam });

/** A key's scopes as the dashboard sends them: at least one of API_KEY_SCOPES. */
const apiKeyScopes = z
  .array(z.enum(API_KEY_SCOPES, fr('doit valoir COLLECT, PAYOUT, REFUND ou READ')))
  .min(1, fr('doit contenir au moins une portée'))
  .max(API_KEY_SCOPES.length * 2)
  .describe('Ce que la clé peut faire : COLLECT (encaisser), PAYOUT (virements et lots), REFUND (rembourser), READ (lire) ; par défaut les quatre');
/** A key's allow-list: addresses or CIDR blocks, normalised; null or [] (absent on creation): any address. */
const allowedIps = z
  .array(z.string().max(64))
  .max(ALLOWED_IPS_MAX)
  .nullable()
  .transform((entries, ctx) => {
    if (entries === null || entries.length === 0) return null;
    const blocks: string[] = [];
    for (const entry of entries) {
      const block = normaliseCidr(entry);
      if (block === null) {
        ctx.addIssue({ code: 'custom', message: `« ${entry.slice(0, 64)} » n'est ni une adresse IP ni un bloc CIDR` });
        return z.NEVER;
      }
      if (!blocks.includes(block)) blocks.push(block);
    }
    return blocks;
  })
  .describe("Adresses IP ou blocs CIDR d'où la clé est acceptée (203.0.113.0/24, 2001:db8::/32) ; null ou [] : toutes");
export const apiKeyRequest = z
  .object({
    name: z.string().trim().min(2).max(100),
    environment: z.enum(['LIVE', 'TEST'], fr('doit valoir LIVE ou TEST')),
    scopes: apiKeyScopes.optional(),
    allowedIps: allowedIps.optional(),
  })
  .meta({ examples: [{ name: 'Boutique test', environment: 'TEST', scopes: ['COLLECT', 'READ'], allowedIps: ['203.0.113.0/24'] }] });
/** The change of the active key's access: its scopes, its allow-list, or both. */
export const apiKeyAccessRequest = z
  .object({ scopes: apiKeyScopes.optional(), allowedIps: allowedIps.optional() })
  .refine((body) => body.scopes !== undefined || body.allowedIps !== undefined, { message: 'indiquez scopes, allowedIps ou les deux', path: ['scopes'] })
  .meta({ examples: [{ scopes: ['COLLECT', 'READ'], allowedIps: ['198.51.100.7'] }] });
export const apiKeyData = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  environment: z.enum(['LIVE', 'TEST']),
  active: z.boolean(),
  scopes: z.array(z.enum(API_KEY_SCOPES)).describe('Ce que la clé peut faire'),
  allowedIps: z.array(z.string()).nullable().describe("Blocs CIDR d'où la clé est acceptée ; null : toutes les adresses"),
  plainTextKey: z.string().optional().describe('La clé complète, affichée une seule fois (création et rotation)'),
  lastUsedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/**
 * `environment` of every dashboard route that takes one (query or body). Absent: resolved by
 * `dashboardEnvironment` (LIVE if the merchant has an active LIVE key or any LIVE transaction, else TEST).
 */
export const dashboardEnvironmentQuery = z
  .enum(['LIVE', 'TEST'], fr('doit valoir LIVE ou TEST'))
  .optional()
  .describe('LIVE ou TEST. Par défaut : LIVE si le marchand a une clé API LIVE active ou au moins une transaction LIVE, sinon TEST');

/**
 * `timeZone` of the dashboard routes that count days (the summary's "today", the chart): an IANA
 * name, output as this runtime spells it; absent: UTC (the days these routes always counted).
 * An offset (`+03:00`) or an unknown name fails with a French message.
 */
export const timeZoneQuery = z
  .string()
  .max(64, fr(TIME_ZONE_MESSAGE))
  .refine((name) => canonicalTimeZone(name) !== null, fr(TIME_ZONE_MESSAGE))
  .transform((name) => canonicalTimeZone(name)!)
  .optional()
  .describe('Fuseau horaire IANA des jours comptés (ex. Africa/Nairobi : « aujourd’hui » commence à minuit à Nairobi). Par défaut : UTC');

/** Query of a paged list: `page` 0-based, `size` 1–100. */
export const pageQuery = z.object({
  page: z.coerce.number().int().min(0).max(100_000).default(0),
  size: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * A page object around `item`, in the shape SharePay's dashboard reads. The page index is given
 * twice, as `number` (Spring's name, read by the dashboard's tables) and `page` (the query's name,
 * read by its pagers).
 */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    content: z.array(item),
    totalElements: z.number(),
    totalPages: z.number(),
    size: z.number(),
    number: z.number().describe('Index de la page, à partir de 0'),
    page: z.number().describe('Le même index que number'),
    first: z.boolean(),
    last: z.boolean(),
  });
}

/** Builds the page object from rows of page `page` of `size`, out of `total`. */
export function toPage<T>(content: T[], total: number, page: number, size: number) {
  const totalPages = Math.ceil(total / size);
  return { content, totalElements: total, totalPages, size, number: page, page, first: page === 0, last: page >= totalPages - 1 };
}
