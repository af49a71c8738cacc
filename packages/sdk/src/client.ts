/**
 * The client: `new Kolo({ apiKey, baseUrl })` and one typed method per merchant-API operation.
 * Creates (checkout, charge, transfer, refund) carry an idempotency key, a new UUID v4 unless the
 * caller gives one, the same on every retry of the call.
 */
import { randomUUID } from 'node:crypto';
import { KoloError } from './errors.ts';
import { call, type CallSpec, type RequestOptions, type Transport } from './request.ts';
import { DEFAULT_BACKOFF, MAX_RETRIES_LIMIT } from './retry.ts';
import type {
  Balance,
  Charge,
  Checkout,
  CreateChargeParams,
  CreateCheckoutParams,
  CreateRefundParams,
  CreateTransferParams,
  EventPage,
  KoloEventEntry,
  ListEventsParams,
  ListTransactionsParams,
  PayInStatus,
  PayOutStatus,
  Refund,
  Transaction,
  TransactionPage,
  Transfer,
  WebhookSettings,
  WebhookTestResult,
} from './types.ts';
import { generateTestHeaders, verifyWebhook } from './webhooks.ts';

/** Options of `new Kolo`. */
export interface KoloOptions {
  /** The application's API key (`sk_test_…` or `sk_live_…`), sent as `X-API-KEY`. Keep it on your server. */
  apiKey: string;
  /** Your Kolo server's address, for example `https://pay.example.com` (no path under `/api`). */
  baseUrl: string;
  /** Time allowed to one attempt, from sending to the end of the answer; default 30 000 ms. */
  timeoutMs?: number;
  /** Retries of a failed attempt (see "Retries" in the README), 0 to 10; default 2. */
  maxRetries?: number;
  /** Wait before the first retry, before jitter; default 500 ms. Doubles on each retry. */
  initialRetryDelayMs?: number;
  /** Cap of the wait between retries; default 8 000 ms. */
  maxRetryDelayMs?: number;
  /** The `fetch` to use; default the global one (Node ≥ 18). */
  fetch?: typeof fetch;
}

/** Bound on a page walk: stops a server that keeps answering the same cursor from looping forever. */
const MAX_PAGES = 100_000;

/**
 * A client of one Kolo server with one API key. Every method returns the `data` of Kolo's answer,
 * typed, or throws a `KoloError` subclass (see errors.ts). Safe to share across requests.
 */
export class Kolo {
  /** Checkout sessions: a hosted page where the payer picks a method and pays. */
  readonly checkouts: { create(params: CreateCheckoutParams, options?: RequestOptions): Promise<Checkout> };
  /** Direct charges of a mobile-money account. */
  readonly charges: { create(params: CreateChargeParams, options?: RequestOptions): Promise<Charge> };
  /** Pay-ins (checkouts, charges, fund collections) by reference. */
  readonly payIns: { retrieve(reference: string, options?: RequestOptions): Promise<PayInStatus> };
  /** Refunds of successful payments. */
  readonly refunds: { create(params: CreateRefundParams, options?: RequestOptions): Promise<Refund> };
  /** Transfers (pay-outs) to a mobile-money account. */
  readonly transfers: { create(params: CreateTransferParams, options?: RequestOptions): Promise<Transfer> };
  /** Pay-outs (transfers, refunds) by reference. */
  readonly payOuts: { retrieve(reference: string, options?: RequestOptions): Promise<PayOutStatus> };
  /** The application's webhook endpoint: read it, set its URL, send it a `webhook.test` event. */
  readonly webhookEndpoint: {
    retrieve(options?: RequestOptions): Promise<WebhookSettings>;
    update(params: { webhookUrl: string }, options?: RequestOptions): Promise<WebhookSettings>;
    sendTest(options?: RequestOptions): Promise<WebhookTestResult>;
  };
  /** The application's balance in the key's environment. */
  readonly balance: { retrieve(options?: RequestOptions): Promise<Balance> };
  /** The application's transactions, newest first, by pages or one at a time. */
  readonly transactions: {
    list(params?: ListTransactionsParams, options?: RequestOptions): Promise<TransactionPage>;
    iterate(params?: ListTransactionsParams, options?: RequestOptions): AsyncIterableIterator<Transaction>;
  };
  /** The application's events, oldest first, by pages or one at a time. */
  readonly events: {
    list(params?: ListEventsParams, options?: RequestOptions): Promise<EventPage>;
    iterate(params?: ListEventsParams, options?: RequestOptions): AsyncIterableIterator<KoloEventEntry>;
  };
  /** Webhook verification, also exported on its own (it needs no API key). */
  readonly webhooks = { verify: verifyWebhook, generateTestHeaders };

  /** Throws `KoloError` naming the option when one is missing or out of range. */
  constructor(options: KoloOptions) {
    const transport = transportOf(options);
    const send = <T>(spec: CallSpec, requestOptions?: RequestOptions) => call<T>(transport, spec, requestOptions);
    /** A create: the caller's idempotency key or a new one, retried with that same key. */
    const create = <T>(path: string, body: unknown, requestOptions: RequestOptions = {}) =>
      send<T>({ method: 'POST', path, body, idempotencyKey: requestOptions.idempotencyKey ?? randomUUID(), isIdempotent: true }, requestOptions);
    const read = <T>(path: string, query?: CallSpec['query'], requestOptions?: RequestOptions) =>
      send<T>({ method: 'GET', path, query, isIdempotent: true }, requestOptions);

    this.checkouts = { create: (params, o) => create<Checkout>('/api/v1/pay-in/checkout', params, o) };
    this.charges = { create: (params, o) => create<Charge>('/api/v1/pay-in/charge', params, o) };
    this.payIns = { retrieve: (reference, o) => read<PayInStatus>(`/api/v1/pay-in/check_status/${pathSegment(reference)}`, undefined, o) };
    this.refunds = { create: (params, o) => create<Refund>('/api/v1/pay-in/refund', params, o) };
    this.transfers = { create: (params, o) => create<Transfer>('/api/v1/pay-out/transfer', params, o) };
    this.payOuts = { retrieve: (reference, o) => read<PayOutStatus>(`/api/v1/pay-out/check_status/${pathSegment(reference)}`, undefined, o) };
    this.webhookEndpoint = {
      retrieve: (o) => read<WebhookSettings>('/api/v1/webhook', undefined, o),
      // Setting the same URL twice leaves the same state: safe to retry.
      update: (params, o) => send<WebhookSettings>({ method: 'PATCH', path: '/api/v1/webhook', body: { webhookUrl: params.webhookUrl }, isIdempotent: true }, o),
      // Each call sends one more event and Kolo takes no idempotency key here: never retried.
      sendTest: (o) => send<WebhookTestResult>({ method: 'POST', path: '/api/v1/webhook/test', isIdempotent: false }, o),
    };
    this.balance = { retrieve: (o) => read<Balance>('/api/v1/balance', undefined, o) };

    const listTransactions = (params: ListTransactionsParams = {}, o?: RequestOptions) =>
      read<TransactionPage>('/api/v1/transactions', { ...params }, o);
    this.transactions = {
      list: listTransactions,
      iterate: async function* (params = {}, o) {
        let cursor = params.cursor;
        for (let pages = 0; pages < MAX_PAGES; pages++) {
          const page = await listTransactions({ ...params, cursor }, o);
          yield* page.items;
          if (page.nextCursor === null || page.nextCursor === cursor) return;
          cursor = page.nextCursor;
        }
      },
    };

    const listEvents = (params: ListEventsParams = {}, o?: RequestOptions) => read<EventPage>('/api/v1/events', { ...params }, o);
    this.events = {
      list: listEvents,
      iterate: async function* (params = {}, o) {
        let after = params.after;
        for (let pages = 0; pages < MAX_PAGES; pages++) {
          const page = await listEvents({ ...params, after }, o);
          yield* page.events;
          if (!page.hasMore || page.nextCursor === null || page.nextCursor === after) return;
          after = page.nextCursor;
        }
      },
    };
  }
}

/** A reference as one path segment (a reference is `[A-Za-z0-9_-]`; anything else is encoded, and Kolo refuses it). */
function pathSegment(reference: string): string {
  return encodeURIComponent(reference);
}

/** Checks the options once, at construction, so a misconfiguration fails before the first payment. */
function transportOf(options: KoloOptions): Transport {
  if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new KoloError('new Kolo: apiKey is required (the application API key shown once in the dashboard, sk_test_… or sk_live_…).');
  }
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new KoloError(`new Kolo: baseUrl must be an absolute http(s) URL of your Kolo server, got ${JSON.stringify(options.baseUrl)}.`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new KoloError(`new Kolo: baseUrl must use http or https, got ${base.protocol}`);
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new KoloError(`new Kolo: timeoutMs must be a positive integer of milliseconds, got ${timeoutMs}.`);
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > MAX_RETRIES_LIMIT) {
    throw new KoloError(`new Kolo: maxRetries must be an integer from 0 to ${MAX_RETRIES_LIMIT}, got ${maxRetries}.`);
  }
  const initialDelayMs = options.initialRetryDelayMs ?? DEFAULT_BACKOFF.initialDelayMs;
  const maxDelayMs = options.maxRetryDelayMs ?? DEFAULT_BACKOFF.maxDelayMs;
  if (!(initialDelayMs >= 0) || !(maxDelayMs >= initialDelayMs)) {
    throw new KoloError('new Kolo: initialRetryDelayMs must be ≥ 0 and maxRetryDelayMs ≥ initialRetryDelayMs.');
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw new KoloError('new Kolo: no global fetch (Node ≥ 18 has one); pass options.fetch.');
  return {
    apiKey: options.apiKey.trim(),
    baseUrl: base.toString().replace(/\/+$/, ''),
    timeoutMs,
    maxRetries,
    backoff: { initialDelayMs, maxDelayMs },
    fetch: fetchImpl,
  };
}
