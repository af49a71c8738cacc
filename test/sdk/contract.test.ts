/**
 * The SDK's hand-written types and error codes against the server's own definitions: the type
 * assertions are checked by `npm run typecheck` (this file is part of the root project), the code
 * list at run time. A field added to, removed from or retyped in a zod schema breaks one of them.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { KOLO_ERROR_CODES } from '../../packages/sdk/src/index.ts';
import type * as Sdk from '../../packages/sdk/src/index.ts';
import { ERRORS } from '../../src/domain/errors.ts';
import { refundData, refundRequest } from '../../src/http/schemas/money.ts';
import {
  chargeData,
  chargeRequest,
  checkoutData,
  checkoutRequest,
  payInStatusData,
  payOutStatusData,
  transferData,
  transferRequest,
} from '../../src/http/schemas/payments.ts';
import { testWebhookData, webhookSettingsData } from '../../src/http/routes/webhooks.ts';
import { WEBHOOK_EVENT_NAMES } from '../../src/webhooks/webhook-events.ts';
import { eventsData, feedEvent } from '../../src/http/schemas/events.ts';
import { balanceData, transactionListItem, transactionsData, transactionsQuery } from '../../src/http/schemas/merchant-reads.ts';

/** A response as JSON carries it: dates become ISO strings. */
type AsJson<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

describe('types match the server schemas', () => {
  it('requests', () => {
    expectTypeOf<Sdk.CreateCheckoutParams>().toEqualTypeOf<z.input<typeof checkoutRequest>>();
    // The body's idempotencyKey is sent as the Idempotency-Key header (RequestOptions).
    expectTypeOf<Sdk.CreateChargeParams>().toEqualTypeOf<Omit<z.input<typeof chargeRequest>, 'idempotencyKey'>>();
    expectTypeOf<Sdk.CreateTransferParams>().toEqualTypeOf<z.input<typeof transferRequest>>();
    expectTypeOf<Sdk.CreateRefundParams>().toEqualTypeOf<z.input<typeof refundRequest>>();
  });

  it('responses', () => {
    expectTypeOf<Sdk.Checkout>().toEqualTypeOf<z.output<typeof checkoutData>>();
    expectTypeOf<Sdk.Charge>().toEqualTypeOf<z.output<typeof chargeData>>();
    expectTypeOf<Sdk.Transfer>().toEqualTypeOf<z.output<typeof transferData>>();
    expectTypeOf<Sdk.Refund>().toEqualTypeOf<z.output<typeof refundData>>();
    expectTypeOf<Sdk.PayInStatus>().toEqualTypeOf<z.output<typeof payInStatusData>>();
    expectTypeOf<Sdk.PayOutStatus>().toEqualTypeOf<z.output<typeof payOutStatusData>>();
    expectTypeOf<Sdk.WebhookSettings>().toEqualTypeOf<AsJson<z.output<typeof webhookSettingsData>>>();
    expectTypeOf<Sdk.WebhookTestResult>().toEqualTypeOf<AsJson<z.output<typeof testWebhookData>>>();
  });

  it('API-key reads', () => {
    expectTypeOf<Sdk.Balance>().toEqualTypeOf<z.output<typeof balanceData>>();
    expectTypeOf<Sdk.Transaction>().toEqualTypeOf<z.output<typeof transactionListItem>>();
    expectTypeOf<Sdk.TransactionPage>().toEqualTypeOf<z.output<typeof transactionsData>>();
    type Filters = Pick<z.input<typeof transactionsQuery>, 'status' | 'type' | 'from' | 'to' | 'cursor'>;
    expectTypeOf<Pick<Sdk.ListTransactionsParams, 'status' | 'type' | 'from' | 'to' | 'cursor'>>().toEqualTypeOf<Filters>();
    // The payload is typed by event name here, a JSON object in the server's schema.
    expectTypeOf<Omit<Sdk.KoloEventEntry, 'payload'>>().toEqualTypeOf<Omit<z.output<typeof feedEvent>, 'payload'>>();
    expectTypeOf<Omit<Sdk.EventPage, 'events'>>().toEqualTypeOf<Omit<z.output<typeof eventsData>, 'events'>>();
  });

  it('event names', () => {
    expectTypeOf<Sdk.KoloEventName>().toEqualTypeOf<(typeof WEBHOOK_EVENT_NAMES)[number]>();
    expect([...WEBHOOK_EVENT_NAMES].sort()).toHaveLength(14);
  });
});

describe('error codes', () => {
  it('are exactly the server closed list', () => {
    expect([...KOLO_ERROR_CODES].sort()).toEqual(Object.keys(ERRORS).sort());
  });
});
