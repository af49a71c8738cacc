/**
 * Writes a new PENDING transaction and its creation event.
 * - `insertTransaction`: inside the caller's database transaction (creations that write more in
 *   the same transaction: a pay-out's ledger reservation, a refund).
 * - `insertTransactionOnce`: charges and checkouts, in ONE statement (data-modifying CTEs): the
 *   idempotency key's claim with its stored response, the transaction and its CREATED event
 *   commit together or not at all, in a single round trip (issue 14: the create path was ten).
 * References are unique by index; a collision (48 random bits) makes the request fail loudly
 * rather than silently reuse a reference.
 */
import { transactionEvents, transactions } from '../db/schema.ts';
import type { Db } from '../db/client.ts';
import { runStatement, statement } from '../db/statement.ts';
import { perDatabase } from '../db/batch.ts';
import type { Services } from '../services.ts';
import type { IdempotencyScope } from './idempotency.ts';
import type { TransactionRow } from './transaction-view.ts';

/** Column values of a new transaction (status, timestamps and counters are set here). */
export type NewTransaction = Omit<typeof transactions.$inferInsert, 'status' | 'createdAt' | 'updatedAt' | 'pollAttempts'>;

/** Inserts the transaction as PENDING and records a CREATED event. Returns the row. */
export async function insertTransaction(tx: Db, values: NewTransaction, now: Date): Promise<TransactionRow> {
  const [row] = await tx
    .insert(transactions)
    .values({ ...values, status: 'PENDING', pollAttempts: 0, createdAt: now, updatedAt: now })
    .returning();
  await tx.insert(transactionEvents).values({
    transactionId: row!.id,
    fromStatus: null,
    toStatus: 'PENDING',
    cause: 'CREATED',
    createdAt: now,
  });
  return row!;
}

/** The columns a pay-in creation sets (charge or checkout); absent = null. */
export interface NewPayIn {
  id: string;
  reference: string;
  applicationId: string;
  type: 'CHARGE' | 'CHECKOUT' | 'FUND_COLLECTION';
  environment: string;
  amount: number;
  currency: string;
  description?: string | null;
  paymentMethod?: string | null;
  payerAccount?: string | null;
  payerName?: string | null;
  payerEmail?: string | null;
  merchantReference?: string | null;
  successUrl?: string | null;
  cancelUrl?: string | null;
  checkoutToken?: string | null;
  expiresAt?: Date | null;
  /** Set when the initiation was prepared before the insert (a connector that prepares locally). */
  operatorReference?: string | null;
  callbackToken?: string | null;
  initiatedAt?: Date | null;
  deadlineAt?: Date | null;
  nextPollAt: Date;
}

const PAY_IN_COLUMNS = `id, reference, application_id, direction, type, environment, status, amount, currency, description,
  payment_method, payer_account, payer_name, payer_email, merchant_reference, success_url, cancel_url, checkout_token,
  expires_at, operator_reference, callback_token, initiated_at, deadline_at, next_poll_at, poll_attempts, created_at, updated_at`;
const PAY_IN_VALUES = `$1::uuid, $2, $3::uuid, 'PAY_IN', $4, $5, 'PENDING', $6::bigint, $7, $8,
  $9, $10, $11, $12, $13, $14, $15, $16,
  $17::timestamptz, $18, $19, $20::timestamptz, $21::timestamptz, $22::timestamptz, 0, $23::timestamptz, $23::timestamptz`;

const insertPayIn = statement(
  'insert_pay_in_v1',
  `with t as (insert into transactions (${PAY_IN_COLUMNS}) values (${PAY_IN_VALUES}) returning id)
   insert into transaction_events (transaction_id, from_status, to_status, cause, created_at)
   select id, null, 'PENDING', 'CREATED', $23::timestamptz from t`,
);

// The key-less pay-ins of one event-loop turn in one statement: parameter n is the array of
// every row's value n (same order and types as `insertPayIn`).
const insertPayIns = statement(
  'insert_pay_ins_v1',
  `with v as (
     select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[],
                          $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
                          $17::timestamptz[], $18::text[], $19::text[], $20::timestamptz[], $21::timestamptz[], $22::timestamptz[], $23::timestamptz[])
       as v(id, reference, application_id, type, environment, amount, currency, description, payment_method, payer_account, payer_name,
            payer_email, merchant_reference, success_url, cancel_url, checkout_token, expires_at, operator_reference, callback_token,
            initiated_at, deadline_at, next_poll_at, created_at)
   ), t as (
     insert into transactions (${PAY_IN_COLUMNS})
     select id, reference, application_id, 'PAY_IN', type, environment, 'PENDING', amount, currency, description, payment_method, payer_account,
            payer_name, payer_email, merchant_reference, success_url, cancel_url, checkout_token, expires_at, operator_reference, callback_token,
            initiated_at, deadline_at, next_poll_at, 0, created_at, created_at
       from v
     returning id, created_at)
   insert into transaction_events (transaction_id, from_status, to_status, cause, created_at)
   select id, null, 'PENDING', 'CREATED', created_at from t`,
);

/**
 * Key-less pay-in inserts, coalesced per event-loop turn (db/batch.ts): one statement for all,
 * each row with its event. Should the statement fail (a reference that collided, say), each row
 * is inserted on its own, so one bad row fails only its own request.
 */
const inserterOf = perDatabase<unknown[], void>(async (db, rows) => {
  if (rows.length === 1) {
    await runStatement(db, insertPayIn, rows[0]!);
    return [undefined];
  }
  try {
    await runStatement(db, insertPayIns, rows[0]!.map((_, column) => rows.map((row) => row[column])));
    return rows.map(() => undefined);
  } catch {
    // Each row alone: a failing one rejects its own request only.
    return Promise.all(
      rows.map((row) =>
        runStatement(db, insertPayIn, row).then(
          () => undefined,
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        ),
      ),
    );
  }
});

// The key is claimed (inserted, or an expired one taken over) with the response it will replay;
// the transaction is inserted only when the claim returned a row. A live key with the same
// (application, key) makes the claim wait for its writer, then return nothing: a replay.
const insertPayInOnceSql = statement(
  'insert_pay_in_once_v1',
  `with claim as (
     insert into idempotency_keys (application_id, key, endpoint, request_hash, transaction_id, response_status, response_body, created_at, expires_at)
     values ($3::uuid, $24, $25, $26, $1::uuid, 201, $27::jsonb, $23::timestamptz, $28::timestamptz)
     on conflict (application_id, key) do update
       set endpoint = excluded.endpoint, request_hash = excluded.request_hash, transaction_id = excluded.transaction_id,
           response_status = excluded.response_status, response_body = excluded.response_body,
           created_at = excluded.created_at, expires_at = excluded.expires_at
       where idempotency_keys.expires_at <= excluded.created_at
     returning 1
   ), t as (
     insert into transactions (${PAY_IN_COLUMNS}) select ${PAY_IN_VALUES} where exists (select 1 from claim) returning id
   ), e as (
     insert into transaction_events (transaction_id, from_status, to_status, cause, created_at)
     select id, null, 'PENDING', 'CREATED', $23::timestamptz from t
   )
   select count(*)::int as created from t`,
);

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

/**
 * Inserts a pay-in as PENDING with its CREATED event and, with an idempotency `scope`, claims
 * the key with `responseData` as the stored response — one statement, one round trip, one
 * database transaction. Returns false when the key was already live (the caller replays the
 * stored response). `responseData` must be the create's final 201 `data`.
 */
export async function insertPayInOnce(
  services: Pick<Services, 'db' | 'config'>,
  scope: IdempotencyScope | null,
  values: NewPayIn,
  responseData: unknown,
  now: Date,
): Promise<boolean> {
  const params: unknown[] = [
    values.id,
    values.reference,
    values.applicationId,
    values.type,
    values.environment,
    values.amount,
    values.currency,
    values.description ?? null,
    values.paymentMethod ?? null,
    values.payerAccount ?? null,
    values.payerName ?? null,
    values.payerEmail ?? null,
    values.merchantReference ?? null,
    values.successUrl ?? null,
    values.cancelUrl ?? null,
    values.checkoutToken ?? null,
    iso(values.expiresAt),
    values.operatorReference ?? null,
    values.callbackToken ?? null,
    iso(values.initiatedAt),
    iso(values.deadlineAt),
    iso(values.nextPollAt),
    now.toISOString(),
  ];
  if (!scope) {
    await inserterOf(services.db).load(params);
    return true;
  }
  const expiresAt = new Date(now.getTime() + services.config.idempotencyTtlHours * 3_600_000);
  params.push(scope.key, scope.endpoint, scope.requestHash, JSON.stringify(responseData), expiresAt.toISOString());
  const { rows } = await runStatement<{ created: number }>(services.db, insertPayInOnceSql, params);
  return (rows[0]?.created ?? 0) > 0;
}
