/**
 * The connector contract: what every rail adapter (sandbox or real operator) implements.
 * One function per flow (pay-in, pay-out, status). Results are data, never exceptions.
 *
 * The one rule of outcomes: a connector reports a definite outcome (`SUCCEEDED`, `FAILED`,
 * `NOT_FOUND`) only for an answer its operator documents as definite. Everything else — a
 * timeout, a reset, an HTTP 5xx, a code missing from its mapping table, a body it cannot
 * parse — is `UNREACHABLE` ("unknown": the money stays where it is and the caller asks again).
 * Mapping tables go through `documentedOutcome`, whose fallback is unknown, never a failure.
 * See `connectors/README.md`. Amounts are integers in the currency's base unit; MSISDNs are
 * normalised digits.
 *
 * Every call takes the caller's `AbortSignal`: once it aborts (Kolo gives up on the call), the
 * connector sends nothing more and answers at once. Before each request it checks the signal
 * (`callOperator` does), and it waits for nothing else (a token, shared state) past it. An
 * initiation stopped before its money-moving request left answers `NOT_SENT`; one stopped while
 * that request was on its way is ambiguous (`UNREACHABLE`).
 */

/** The rail a request goes over (a row of the `providers` table, reduced to what connectors need). */
export interface Rail {
  code: string;
  operator: string;
  country: string;
  currency: string;
}

/** What a connector needs to prepare an initiation (see `Connector.prepare`). */
export interface PrepareRequest {
  direction: 'PAY_IN' | 'PAY_OUT';
  /** Our reference, sent as the operator's correlation/idempotency key. */
  reference: string;
  rail: Rail;
  amount: number;
  currency: string;
  msisdn: string;
  description: string | null;
  /** When the initiation happens (our clock). */
  initiatedAt: Date;
  /**
   * Pay-outs: how many earlier sends the operator refused for want of Kolo's own float (absent:
   * none). An operator that refuses a repeated id (Daraja's OriginatorConversationID) prepares a
   * new one for each resend.
   */
  resend?: number;
  /**
   * Pay-outs that refund a pay-in (a merchant-funded refund): that pay-in as the operator knows
   * it. Operators whose refund API names the original payment (Airtel's
   * `POST /standard/v1/payments/refund` by `airtel_money_id`) refund through it; the others pay
   * the refund out like any transfer and ignore it. Absent for every other pay-out.
   */
  refund?: RefundedPayment;
}

/**
 * The pay-in a refund pays back, as its operator knows it: our reference, the operator-side id
 * of its initiation, the operator's id of its money movement (null when its answers never gave
 * one) and its amount (base units).
 */
export interface RefundedPayment {
  reference: string;
  operatorReference: string | null;
  operatorTransactionId: string | null;
  amount: number;
}

/**
 * The operator-side id an initiation will carry, obtained before anything can move money:
 * generated locally (MTN `X-Reference-Id`, UUIDv4) or asked of the operator (Orange `payToken`,
 * an `init` call that pushes nothing to the customer). The caller stores it before `initiate`.
 */
export type PrepareResult =
  | { kind: 'PREPARED'; operatorReference: string }
  | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string }
  | { kind: 'UNREACHABLE'; error: string };

/** A pay-in (debit of `msisdn`) or pay-out (credit of `msisdn`) to start at the operator. */
export interface InitiateRequest extends PrepareRequest {
  /** The prepared operator-side id, already stored by the caller. */
  operatorReference: string;
  /** Where the operator should call us back (per-transaction token in the path), or null. */
  callbackUrl: string | null;
  /**
   * Redirect pay-ins only: where the operator sends the customer back after paying (the hosted
   * checkout page, or `PUBLIC_BASE_URL` for a direct charge). Absent for push rails.
   */
  returnUrl?: string | null;
}

/**
 * Operator answer to an initiation. `UNREACHABLE`: the request that can move money may have
 * reached the operator (timeout, reset, 5xx…): ambiguous. `NOT_SENT`: it never left Kolo (the
 * caller's signal aborted first, or a step before it, such as a token, could not be had):
 * nothing can move, and the initiation may be prepared and sent again.
 */
export type InitiateResult =
  | { kind: 'ACCEPTED'; operatorReference: string | null; redirectUrl?: string }
  | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string }
  | { kind: 'UNREACHABLE'; error: string }
  | { kind: 'NOT_SENT'; error: string };

/**
 * How a rail collects a pay-in: `PUSH` (the operator prompts the customer's phone: USSD, STK) or
 * `REDIRECT` (the customer is sent to the operator's page or app, `InitiateResult.redirectUrl`).
 */
export type PayInFlow = 'PUSH' | 'REDIRECT';

/**
 * What Kolo knows of an initiation when it asks about it. `ACCEPTED`: the operator acknowledged
 * it. `IN_FLIGHT`: its outcome is unknown and one of its requests may still reach the operator
 * (sent or abandoned less than the landing bound ago): the operator having no record of it yet
 * proves nothing. `UNKNOWN`: its outcome is unknown and none of its requests can still arrive.
 * Only for `UNKNOWN` does "no record of it" mean it never landed (`NOT_FOUND`); for the others
 * it is `PENDING`.
 */
export type InitiationState = 'ACCEPTED' | 'IN_FLIGHT' | 'UNKNOWN';

/** What a status query needs: the transaction as we stored it. */
export interface StatusQuery {
  direction: 'PAY_IN' | 'PAY_OUT';
  reference: string;
  operatorReference: string | null;
  /** What the operator's silence about the initiation may mean (`InitiationState`). */
  initiation: InitiationState;
  rail: Rail;
  msisdn: string;
  amount: number;
  initiatedAt: Date;
  /**
   * The transaction's callback URL, for operators whose status query answers asynchronously
   * (Daraja Transaction Status Query → ResultURL); absent or null when there is none.
   */
  callbackUrl?: string | null;
  /**
   * The operator's id of the last asynchronous status query (`StatusResult` PENDING's
   * `statusQueryReference`), for `readCallback` to recognise that query's answer; null if none.
   */
  statusQueryReference?: string | null;
  /** Pay-outs: the send asked about follows this many refusals for want of float (`PrepareRequest.resend`); absent: none. */
  resend?: number;
  /**
   * The failure the operator's own Result reported for this transaction (as `readCallback` read
   * it, vouched for) while Kolo awaited its status query's confirmation; null or absent if none.
   * For operators whose status query answer confirms a failure without naming its cause (Daraja's
   * Transaction Status result has no ResultCode): the cause is this one.
   */
  reportedFailure?: ReportedFailure | null;
  /** A refund's pay-out: the pay-in it pays back (`PrepareRequest.refund`); absent otherwise. */
  refund?: RefundedPayment;
}

/** A failure as a connector read it: our code and the operator's own words. */
export interface ReportedFailure {
  failureCode: FailureCode;
  failureReason: string;
}

/**
 * What a connector reads in an operator callback body (only operators whose callbacks carry
 * something a status query cannot give: Daraja). `QUERY`: a hint, query the operator (with the
 * operator reference the body named, when we never learnt it). `RESULT`: the operator's verdict
 * on this very transaction — returned only when the body carries what only the operator and Kolo
 * know (Daraja's `ConversationID` of the request, answered to Kolo synchronously and never shown
 * to merchants); `isStatusQueryAnswer` when it answers Kolo's own status query (named by
 * `StatusQuery.statusQueryReference`) rather than reporting the operation itself. The caller
 * still confirms by a status query a failure that would release reserved money, unless it is
 * that query's answer.
 */
export type CallbackReading =
  | { kind: 'QUERY'; operatorReference: string | null }
  | { kind: 'RESULT'; status: StatusResult; isStatusQueryAnswer: boolean };

/**
 * Operator answer to a status query. `NOT_FOUND`: the operator has no record of it, and the
 * query's `initiation` was `UNKNOWN` (nothing of it can still arrive): it never landed.
 * `SUCCEEDED.operatorTransactionId`: the operator's own id of the money movement, as on its
 * statements and the customer's SMS (MTN `financialTransactionId`, Orange `txnid`, M-Pesa
 * receipt, Wave transaction id), when the answer carries it. `PENDING.statusQueryReference`: an
 * asynchronous query was sent and its answer will name this id (Daraja `ConversationID`).
 * `PENDING.retryAfterMs`: the operator should not be asked again sooner than this, milliseconds
 * from now (Daraja: STK Query no earlier than 20 s after the push, then about every 15 s; a
 * Transaction Status Query's answer is awaited 30 s before the next query).
 */
export type StatusResult =
  | { kind: 'PENDING'; statusQueryReference?: string; retryAfterMs?: number }
  | { kind: 'SUCCEEDED'; operatorReference: string | null; operatorTransactionId?: string | null }
  | { kind: 'FAILED'; failureCode: FailureCode; failureReason: string }
  | { kind: 'NOT_FOUND' }
  | { kind: 'UNREACHABLE'; error: string };

/**
 * What an operator documents one of its codes or statuses to mean: a definite outcome, or still
 * in progress. The rows of every connector's mapping table.
 */
export type DocumentedMeaning =
  | { kind: 'SUCCEEDED' }
  | { kind: 'PENDING' }
  | { kind: 'FAILED'; failureCode: FailureCode };

/**
 * Reads `code` through a connector's mapping table (the operator's documented codes, and only
 * those). A code missing from the table — undocumented, new, misspelt, absent — is unknown
 * (`UNREACHABLE`), never a failure: the money stays where it is until the operator answers a
 * documented code. `reason` is the operator's text, kept as `failureReason`; `success` fills a
 * SUCCEEDED result's ids.
 */
export function documentedOutcome(
  table: Readonly<Record<string, DocumentedMeaning>>,
  code: string | null | undefined,
  reason: string,
  success: { operatorReference: string | null; operatorTransactionId?: string | null } = { operatorReference: null },
): StatusResult {
  const meaning = code !== null && code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
  if (!meaning) return { kind: 'UNREACHABLE', error: `undocumented operator answer ${JSON.stringify(code ?? null)}: ${reason}`.slice(0, 500) };
  if (meaning.kind === 'SUCCEEDED') return { kind: 'SUCCEEDED', ...success };
  if (meaning.kind === 'PENDING') return { kind: 'PENDING' };
  return { kind: 'FAILED', failureCode: meaning.failureCode, failureReason: reason };
}

/**
 * Our stable failure codes, the same for every operator, plus SESSION_EXPIRED for unpaid checkouts,
 * and for pay-outs that waited for float and were never sent: PAYOUT_CANCELLED (the merchant
 * cancelled it) and FLOAT_WAIT_EXPIRED (it waited longer than `FLOAT_QUEUE_MAX_WAIT_MINUTES`).
 */
export const FAILURE_CODES = [
  'INSUFFICIENT_FUNDS',
  'MERCHANT_INSUFFICIENT_FUNDS',
  'PAYER_NOT_FOUND',
  'PAYEE_NOT_FOUND',
  'ACCOUNT_INACTIVE',
  'ACCOUNT_BLOCKED',
  'PAYEE_NOT_ALLOWED',
  'LIMIT_EXCEEDED',
  'REJECTED_BY_PAYER',
  'WRONG_PIN',
  'TIMEOUT',
  'INVALID_REQUEST',
  'CONFIGURATION_ERROR',
  'PROVIDER_UNAVAILABLE',
  'PROVIDER_ERROR',
  'NOT_FOUND_AT_PROVIDER',
  'SESSION_EXPIRED',
  'PAYOUT_CANCELLED',
  'FLOAT_WAIT_EXPIRED',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/**
 * A rail adapter. Implementations must bound every outgoing call by a timeout, and honour
 * `signal` at every step (see the file comment): after it aborts, no request leaves.
 */
export interface Connector {
  /** Operator this connector speaks to, e.g. `MTN_MOMO`, or `SANDBOX`. */
  readonly operator: string;
  /** How this rail's pay-ins reach the customer; absent means PUSH. */
  readonly payInFlow?: PayInFlow;
  /**
   * True when `prepare` makes no network call and cannot be UNREACHABLE (the id is ours: MTN's
   * X-Reference-Id, our reference for Wave and M-Pesa, the sandbox's): the creator then prepares
   * before the insert and stores the prepared id with the transaction, in one write. Absent:
   * prepared after the insert (Orange Money asks the operator for a payToken).
   */
  readonly preparesLocally?: boolean;
  /**
   * True when the operator refunds a pay-in through its own refund API, by the pay-in's id
   * (`PrepareRequest.refund`), and only in full (Airtel): a merchant refund is then the pay-in's
   * whole amount, once. Absent: a refund is a pay-out like a transfer, of any amount.
   */
  readonly refundsWholePayments?: boolean;
  /** Obtains the operator-side id of an initiation; never moves money. Aborted: UNREACHABLE. */
  prepare(request: PrepareRequest, signal: AbortSignal): Promise<PrepareResult>;
  /**
   * Sends the initiation prepared under `request.operatorReference`; sent at most once per id
   * (again only after `NOT_SENT`). Aborted before the money-moving request: NOT_SENT; during it:
   * UNREACHABLE.
   */
  initiate(request: InitiateRequest, signal: AbortSignal): Promise<InitiateResult>;
  /** Asks the operator about `query`'s initiation. Aborted: UNREACHABLE. */
  getStatus(query: StatusQuery, signal: AbortSignal): Promise<StatusResult>;
  /** Reads a callback body (parsed JSON, or undefined); absent: callbacks only trigger a status query. */
  readCallback?(body: unknown, query: StatusQuery): CallbackReading;
  /**
   * Why an unsigned callback body is not the operator's, or null when it is: for operators that
   * authenticate their callbacks with a value answered at initiation (Orange Web Payment's
   * `notif_token`), looked up by the initiation's `operatorReference`. A callback with a problem is
   * ignored: nothing is queried, nothing changes. Absent: every callback is a hint. Never throws.
   */
  callbackProblem?(body: unknown, operatorReference: string | null): Promise<string | null>;
  /** Fetches a token for each product (for `kolo connectors check`); absent on the sandbox. */
  check?(): Promise<ConnectorCheck[]>;
  /**
   * Reads the operator's balance of the wallet pay-outs are paid from (Kolo's float at this
   * operator), when its contract offers a balance query; absent otherwise (the float is then
   * unknown). An operator that answers asynchronously (Daraja's Account Balance) is asked to post
   * its result to `resultUrl` and answers REQUESTED; `readBalanceResult` then reads that result.
   * Never throws; aborted: UNKNOWN.
   */
  readBalance?(signal: AbortSignal, resultUrl: string): Promise<BalanceResult>;
  /**
   * Reads the body (parsed JSON, or undefined) an asynchronous balance query posted to its
   * `resultUrl`: BALANCE, or UNKNOWN with why (REQUESTED is never returned). Absent: the
   * operator's balance query answers at once.
   */
  readBalanceResult?(body: unknown): BalanceResult;
}

/**
 * The operator's answer to a balance query. `BALANCE`: `amount` in base units of `currency`, as
 * available for pay-outs. `UNKNOWN`: no usable answer (unreachable, refused, unparseable), with
 * why. `REQUESTED`: the operator accepted the query and will post the balance to the result URL
 * later (Daraja's Account Balance).
 */
export type BalanceResult = { kind: 'BALANCE'; amount: number; currency: string } | { kind: 'UNKNOWN'; error: string } | { kind: 'REQUESTED' };

/** One line of `kolo connectors check`: a product and whether its token could be fetched. */
export interface ConnectorCheck {
  product: string;
  ok: boolean;
  /** Human-readable detail, secrets masked. */
  detail: string;
}
