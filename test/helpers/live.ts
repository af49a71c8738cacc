/**
 * Helpers for the LIVE connector tests: a harness whose MTN / Orange connectors point at a local
 * simulator (started on port 0), bounded waits for what callbacks do in the background, and
 * the merchant-visible records (events, webhook deliveries) the assertions read.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { webhookDeliveries, webhookEvents } from '../../src/db/schema-webhooks.ts';
import { MTN_SIM_DEFAULTS, type MtnSimulator } from '../../src/connectors/mtn-momo/simulator/mtn-simulator.ts';
import { ORANGE_SIM_DEFAULTS } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import { MPESA_SIM_DEFAULTS } from '../../src/connectors/mpesa/simulator/mpesa-simulator.ts';
import { WAVE_SIM_DEFAULTS } from '../../src/connectors/wave/simulator/wave-simulator.ts';
import { ORANGE_WEBPAY_SIM_DEFAULTS } from '../../src/connectors/orange-webpay/simulator/orange-webpay-simulator.ts';

/** The environment variables that point the MTN connector at `sim` with its default credentials. */
export function mtnEnv(sim: Pick<MtnSimulator, 'url'>, overrides: Record<string, string> = {}): Record<string, string> {
  const d = MTN_SIM_DEFAULTS;
  return {
    MTN_MOMO_BASE_URL: sim.url,
    MTN_MOMO_TARGET_ENVIRONMENT: 'mtncameroon',
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: d.collection.subscriptionKey,
    MTN_MOMO_COLLECTION_API_USER: d.collection.apiUser,
    MTN_MOMO_COLLECTION_API_KEY: d.collection.apiKey,
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: d.disbursement.subscriptionKey,
    MTN_MOMO_DISBURSEMENT_API_USER: d.disbursement.apiUser,
    MTN_MOMO_DISBURSEMENT_API_KEY: d.disbursement.apiKey,
    ...overrides,
  };
}

/** Starts a harness with `env`, plus a LIVE tenant (in `currency`, default XAF) whose webhooks go to `webhookUrl`. */
export async function startLiveHarness(
  env: Record<string, string>,
  webhookUrl: string,
  log?: Logger,
  currency?: string,
): Promise<{ h: Harness; t: Tenant }> {
  const h = await startHarness({ CONNECTOR_TIMEOUT_MS: '1000', WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', ...env }, log ? { log } : {});
  const t = await h.createTenant({ environment: 'LIVE', ...(currency ? { currency } : {}) });
  const set = await h.request('PATCH', '/api/v1/webhook', { key: t.key, body: { webhookUrl } });
  if (set.status !== 200) throw new Error(`webhook URL not set: ${set.text}`);
  return { h, t };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Re-evaluates `check` every 20 ms, at most `tries` times, until it returns true; throws otherwise. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, tries = 750): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`gave up waiting for: ${what}`);
}

/** The transaction row of `reference`. */
export async function rowOf(h: Harness, reference: string) {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  if (!row) throw new Error(`no transaction ${reference}`);
  return row;
}

/** Waits until `reference` leaves PENDING; returns the row. */
export async function settled(h: Harness, reference: string) {
  await waitUntil(`${reference} to settle`, async () => (await rowOf(h, reference)).status !== 'PENDING');
  return rowOf(h, reference);
}

/** The events of `reference`, oldest first, as `[from, to, cause]`. */
export async function eventTrail(h: Harness, reference: string): Promise<[string | null, string, string][]> {
  const row = await rowOf(h, reference);
  const events = await h.services.db
    .select()
    .from(transactionEvents)
    .where(eq(transactionEvents.transactionId, row.id))
    .orderBy(asc(transactionEvents.id));
  return events.map((e) => [e.fromStatus, e.toStatus, e.cause]);
}

/** Webhook event types recorded for `reference` (one per status change), in order. */
export async function webhookTypes(h: Harness, reference: string): Promise<string[]> {
  const row = await rowOf(h, reference);
  const events = await h.services.db
    .select({ type: webhookEvents.eventName, id: webhookEvents.id })
    .from(webhookEvents)
    .where(eq(webhookEvents.transactionId, row.id))
    .orderBy(asc(webhookEvents.createdAt));
  return events.map((e) => e.type);
}

/** Number of webhook deliveries of `reference`'s events. */
export async function deliveryCount(h: Harness, reference: string): Promise<number> {
  const row = await rowOf(h, reference);
  const rows = await h.services.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, and(eq(webhookEvents.id, webhookDeliveries.eventId)))
    .where(eq(webhookEvents.transactionId, row.id));
  return rows.length;
}

/** The environment variables that point the Orange connector at `sim` with its default credentials. */
export function orangeEnv(sim: { url: string }, overrides: Record<string, string> = {}): Record<string, string> {
  const d = ORANGE_SIM_DEFAULTS;
  return {
    ORANGE_MONEY_BASE_URL: sim.url,
    ORANGE_MONEY_CONSUMER_KEY: d.consumerKey,
    ORANGE_MONEY_CONSUMER_SECRET: d.consumerSecret,
    ORANGE_MONEY_API_USERNAME: d.apiUsername,
    ORANGE_MONEY_API_PASSWORD: d.apiPassword,
    ORANGE_MONEY_CHANNEL_MSISDN: d.channelMsisdn,
    ORANGE_MONEY_PIN: d.pin,
    ...overrides,
  };
}

/** The environment variables that point the M-Pesa Daraja connector at `sim` with its default credentials. */
export function mpesaEnv(sim: { url: string }, overrides: Record<string, string> = {}): Record<string, string> {
  const d = MPESA_SIM_DEFAULTS;
  return {
    MPESA_BASE_URL: sim.url,
    MPESA_CONSUMER_KEY: d.consumerKey,
    MPESA_CONSUMER_SECRET: d.consumerSecret,
    MPESA_SHORTCODE: d.shortCode,
    MPESA_PASSKEY: d.passkey,
    MPESA_B2C_SHORTCODE: d.b2cShortCode,
    MPESA_INITIATOR_NAME: d.initiatorName,
    MPESA_SECURITY_CREDENTIAL: d.securityCredential,
    ...overrides,
  };
}

/** The environment variables that point the Wave connector (both wallets) at `sim` with its default keys. */
export function waveEnv(sim: { url: string }, overrides: Record<string, string> = {}): Record<string, string> {
  const d = WAVE_SIM_DEFAULTS;
  return {
    WAVE_BASE_URL: sim.url,
    WAVE_WEBHOOK_SECRET: d.webhookSecret,
    WAVE_SN_CHECKOUT_API_KEY: d.wallets.SN.checkoutApiKey,
    WAVE_SN_PAYOUT_API_KEY: d.wallets.SN.payoutApiKey,
    WAVE_CI_CHECKOUT_API_KEY: d.wallets.CI.checkoutApiKey,
    WAVE_CI_PAYOUT_API_KEY: d.wallets.CI.payoutApiKey,
    ...overrides,
  };
}

/**
 * The environment variables that point the Orange Money Web Payment connector at `sim` with its
 * default credentials, for the countries `countries` (production paths, market currencies).
 */
export function orangeWebpayEnv(sim: { url: string }, countries: readonly string[] = ['CI', 'SN'], overrides: Record<string, string> = {}): Record<string, string> {
  const d = ORANGE_WEBPAY_SIM_DEFAULTS;
  return {
    ORANGE_WEBPAY_BASE_URL: sim.url,
    ORANGE_WEBPAY_CLIENT_ID: d.clientId,
    ORANGE_WEBPAY_CLIENT_SECRET: d.clientSecret,
    ORANGE_WEBPAY_MERCHANT_KEYS: countries.map((c) => `${c}:${d.merchantKeys[c]}`).join(','),
    ...overrides,
  };
}
