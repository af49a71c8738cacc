/**
 * Demo data for a first start: on an empty database (no account at all), a demo merchant with a
 * generated dashboard password, a demo XAF application with a webhook secret, and an active TEST
 * key. The password's, the key's and the secret's plain texts are returned once, to be printed
 * once (the password and the key are stored only as hashes, the secret only encrypted), so a
 * newcomer can log in to the dashboard at /app and see their first webhooks arrive signed.
 */
import { eq, sql } from 'drizzle-orm';
import { hashPassword } from '../dashboard/passwords.ts';
import { accounts } from '../db/schema.ts';
import type { Services } from '../services.ts';
import { createApiKey } from './api-keys.ts';
import { createApplication } from './applications.ts';
import { createMerchant } from './merchants.ts';
import { createWebhookSecret } from '../webhooks/webhook-secrets.ts';

/** What the seed created; null when the database already had accounts. */
export interface DemoSeed {
  merchantEmail: string;
  /** The demo merchant's dashboard password, shown once. */
  merchantPassword: string;
  applicationId: string;
  applicationName: string;
  plainTextKey: string;
  /** The application's webhook secret (`whsec_…`), shown once. */
  plainTextWebhookSecret: string;
}

/** Seeds the demo merchant, application and TEST key when the database has no account. */
export async function seedDemo(services: Pick<Services, 'db' | 'clock' | 'ids' | 'webhookSecretBox' | 'config'>): Promise<DemoSeed | null> {
  const [{ count } = { count: 0 }] = await services.db.select({ count: sql<number>`count(*)::int` }).from(accounts);
  if (count > 0) return null;
  const merchant = await createMerchant(services, { fullName: 'Marchand de démonstration', email: 'demo@kolo.local', country: 'CM' });
  // 96 random bits, read once from the banner: enough for a password nobody types often.
  const merchantPassword = services.ids.hex(12);
  const passwordHash = await hashPassword(merchantPassword, services.config.passwordScryptLogN);
  await services.db.update(accounts).set({ passwordHash }).where(eq(accounts.id, merchant.id));
  const application = await createApplication(services, {
    merchantId: merchant.id,
    name: 'Boutique démo',
    currency: 'XAF',
    description: "Application de démonstration créée au premier démarrage.",
  });
  const key = await createApiKey(services, { applicationId: application.id, name: 'Clé de test démo', environment: 'TEST' });
  const secret = await createWebhookSecret(services, application.id);
  return {
    merchantEmail: merchant.email,
    merchantPassword,
    applicationId: application.id,
    applicationName: application.name,
    plainTextKey: key.plainTextKey,
    plainTextWebhookSecret: secret.plainTextWebhookSecret,
  };
}

/**
 * The banner printed once after seeding: the dashboard login, the key, the webhook secret and how
 * to receive webhooks (`kolo listen` to a local URL, the dashboard, the API), and ready-to-paste
 * curl commands.
 */
export function demoBanner(seed: DemoSeed, baseUrl: string): string {
  const key = seed.plainTextKey;
  return [
    '',
    '================ Kolo : données de démonstration ================',
    `Marchand : ${seed.merchantEmail}   Application : ${seed.applicationName} (${seed.applicationId}, XAF)`,
    '',
    'Tableau de bord (mot de passe affiché une seule fois, changez-le dans « Profil ») :',
    `  ${baseUrl}/app   e-mail : ${seed.merchantEmail}   mot de passe : ${seed.merchantPassword}`,
    'Clé API de TEST (affichée une seule fois, conservez-la) :',
    `  ${key}`,
    '',
    'Secret de signature des webhooks (affiché une seule fois, conservez-le) :',
    `  ${seed.plainTextWebhookSecret}`,
    'Recevoir les webhooks (signés avec ce secret, en-têtes webhook-signature et X-Sharepay-Signature) :',
    '  sur une URL locale de votre machine, sans adresse publique :',
    '    kolo listen --forward-to http://localhost:3000/webhooks',
    `  ou sur l'URL de webhook de l'application, dans le tableau de bord (« URL des webhooks ») : ${baseUrl}/app/apps/${seed.applicationId}`,
    '  ou par l\'API :',
    `    curl -s -X PATCH ${baseUrl}/api/v1/webhook -H 'Content-Type: application/json' -H 'X-API-KEY: ${key}' -d '{"webhookUrl":"https://votre-site.example/webhooks/kolo"}'`,
    '  (une URL de webhook locale, http://localhost:…, demande WEBHOOK_ALLOW_PRIVATE_HOSTS=true au démarrage de Kolo)',
    '',
    'Créer une session de paiement (checkout) :',
    `  curl -s -X POST ${baseUrl}/api/v1/pay-in/checkout -H 'Content-Type: application/json' -H 'X-API-KEY: ${key}' -d '{"amount":5000,"currency":"XAF","description":"Commande 42","merchantReference":"CMD-42"}'`,
    '',
    'Débiter un numéro (charge, réussit après quelques secondes dans le bac à sable) :',
    `  curl -s -X POST ${baseUrl}/api/v1/pay-in/charge -H 'Content-Type: application/json' -H 'X-API-KEY: ${key}' -d '{"amount":5000,"currency":"XAF","paymentMethod":"MTN_MOMO_CM","payerAccount":"237677000001","idempotencyKey":"demo-1"}'`,
    '==================================================================',
    '',
  ].join('\n');
}
