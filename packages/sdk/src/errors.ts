/**
 * Errors thrown by the client, one class per kind of failure (as stripe-node does), all extending
 * `KoloError`. An answer of the API in its error envelope `{success: false, code, message, data}`
 * becomes a `KoloApiError` (or one of its subclasses, chosen by `code` and HTTP status); a request
 * that got no answer becomes a `KoloConnectionError`; a webhook that fails verification becomes a
 * `KoloSignatureError`.
 */

/**
 * The closed list of error codes Kolo answers with (its `code` field). A client may also see
 * `UNEXPECTED_RESPONSE` (set by this SDK, never sent by Kolo) when a server in front of Kolo
 * answered something other than Kolo's envelope.
 */
export const KOLO_ERROR_CODES = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'MALFORMED_JSON',
  'CURRENCY_MISMATCH',
  'AMOUNT_BELOW_MINIMUM',
  'AMOUNT_ABOVE_MAXIMUM',
  'INSUFFICIENT_BALANCE',
  'REFUND_NOT_ALLOWED',
  'REFUND_AMOUNT_EXCEEDED',
  'INVALID_PARAMETER',
  'UNAUTHORIZED',
  'TOKEN_EXPIRED',
  'INVALID_TOKEN',
  'INVALID_CREDENTIALS',
  'INVALID_REFRESH_TOKEN',
  'COMPROMISED_SESSION',
  'EXPIRED_SESSION',
  'INVALID_TOKEN_TYPE',
  'ACCESS_DENIED',
  'ACCOUNT_NOT_ACTIVE',
  'EMAIL_NOT_VERIFIED',
  'APP_ACCESS_DENIED',
  'USER_NOT_FOUND',
  'APP_NOT_FOUND',
  'API_KEY_NOT_FOUND',
  'OTP_NOT_FOUND',
  'OTP_INVALID',
  'OTP_EXPIRED',
  'INVALID_RESET_TOKEN',
  'EMAIL_ALREADY_EXISTS',
  'ACCOUNT_ALREADY_VERIFIED',
  'APP_NAME_ALREADY_EXISTS',
  'PROVIDER_ALREADY_EXISTS',
  'PROVIDER_NOT_FOUND',
  'TRANSACTION_NOT_FOUND',
  'PAYOUT_NOT_CANCELLABLE',
  'STATEMENT_NOT_READY',
  'RESOURCE_NOT_FOUND',
  'WEBHOOK_SECRET_NOT_FOUND',
  'WEBHOOK_DELIVERY_NOT_FOUND',
  'WEBHOOK_URL_NOT_CONFIGURED',
  'WEBHOOK_SECRET_ALREADY_EXISTS',
  'WEBHOOK_TEST_FAILED',
  'AMOUNT_REQUIRED_FOR_FIXED',
  'COLLECTION_NOT_FOUND',
  'COLLECTION_NOT_EDITABLE',
  'COLLECTION_ALREADY_CLOSED',
  'COLLECTION_NOT_CLOSED',
  'COLLECTION_NOT_AVAILABLE',
  'API_KEY_ALREADY_ACTIVE',
  'IDEMPOTENCY_KEY_REUSED',
  'STATEMENT_FILE_INVALID',
  'STATEMENT_FILE_REQUIRED',
  'RECONCILIATION_CASE_NOT_FOUND',
  'RECONCILIATION_CASE_CLOSED',
  'RECONCILIATION_ACTION_NOT_APPLICABLE',
  'OPERATOR_RECORDS_UNAVAILABLE',
  'SESSION_EXPIRED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TIMEOUT',
  'REQUEST_HEADER_FIELDS_TOO_LARGE',
  'TOO_MANY_REQUESTS',
  'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
  'SECOND_FACTOR_REQUIRED',
  'SECOND_FACTOR_INVALID',
  'SECOND_FACTOR_ENROLMENT_REQUIRED',
  'FRESH_SECOND_FACTOR_REQUIRED',
  'SECOND_FACTOR_ALREADY_ENABLED',
  'API_KEY_SCOPE_DENIED',
  'API_KEY_IP_DENIED',
  'MEMBER_NOT_FOUND',
  'INVITATION_INVALID',
  'BATCH_NOT_FOUND',
  'BATCH_NOT_AWAITING_APPROVAL',
  'BATCH_SELF_APPROVAL',
  'BATCH_NOT_FINISHED',
  'RAIL_CLOSED',
] as const;

/** One of Kolo's error codes. */
export type KoloErrorCode = (typeof KOLO_ERROR_CODES)[number];

/** Root of every error this SDK throws. */
export class KoloError extends Error {
  override name = 'KoloError';
}

/** What the client knew of the failed request, for `KoloApiError`. */
export interface KoloApiErrorInit {
  /** Kolo's code, or `UNEXPECTED_RESPONSE` when the answer was not Kolo's envelope. */
  code: KoloErrorCode | 'UNEXPECTED_RESPONSE';
  /** HTTP status of the answer. */
  status: number;
  /** Kolo's message (French), or a description of the unexpected answer. */
  message: string;
  /** The `X-Request-Id` Kolo answered with (quote it when asking for support), or null. */
  requestId: string | null;
  /** `data` of the error envelope: the field map of a VALIDATION_ERROR, else null. */
  data: Record<string, string> | null;
  /** The `Retry-After` of the answer in milliseconds, or null. */
  retryAfterMs?: number | null;
}

/**
 * Kolo answered with an error: `code` (the closed list `KoloErrorCode`), HTTP `status`, Kolo's
 * French `message`, and the `requestId` to quote when asking for support. Business outcomes of a
 * payment (declined, insufficient funds on the payer's side) are not errors: they are the status
 * of the transaction.
 */
export class KoloApiError extends KoloError {
  override name = 'KoloApiError';
  readonly code: KoloErrorCode | 'UNEXPECTED_RESPONSE';
  readonly status: number;
  readonly requestId: string | null;
  /** `data` of the error envelope (the field map of a validation error), else null. */
  readonly data: Record<string, string> | null;

  constructor(init: KoloApiErrorInit) {
    super(init.message);
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.data = init.data;
  }
}

/** 401: the API key is missing, malformed, unknown or revoked. Check the `apiKey` given to `new Kolo`, and that it is this server's. */
export class KoloAuthenticationError extends KoloApiError {
  override name = 'KoloAuthenticationError';
}

/** 403: the key may not do this (for example its merchant account is suspended). */
export class KoloPermissionError extends KoloApiError {
  override name = 'KoloPermissionError';
}

/**
 * 400 VALIDATION_ERROR or INVALID_PARAMETER: some fields are invalid. `fields` maps each field
 * name to Kolo's French message for it (for example `{ amount: 'doit être supérieur ou égal à 1' }`).
 */
export class KoloValidationError extends KoloApiError {
  override name = 'KoloValidationError';
  /** Field name → French message. Empty when Kolo named no field. */
  readonly fields: Record<string, string>;

  constructor(init: KoloApiErrorInit) {
    super(init);
    this.fields = init.data ?? {};
  }
}

/** 404: no such transaction (or resource) for this key's application and environment. */
export class KoloNotFoundError extends KoloApiError {
  override name = 'KoloNotFoundError';
}

/**
 * 409 IDEMPOTENCY_KEY_REUSED: this idempotency key was already used with a different request.
 * Use a new key for a new operation; reuse a key only to retry the very same request.
 */
export class KoloIdempotencyError extends KoloApiError {
  override name = 'KoloIdempotencyError';
}

/** 429: too many requests. `retryAfterMs` is the wait Kolo asked for (null when it gave none). */
export class KoloRateLimitError extends KoloApiError {
  override name = 'KoloRateLimitError';
  readonly retryAfterMs: number | null;

  constructor(init: KoloApiErrorInit) {
    super(init);
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/**
 * The request got no answer: the connection failed or was cut, or no answer came within
 * `timeoutMs`, on every attempt. A create may still have been carried out: retry it with the same
 * idempotency key (`error.idempotencyKey`), which can never create a second transaction.
 */
export class KoloConnectionError extends KoloError {
  override name = 'KoloConnectionError';
  /** True when the last attempt ran out of time rather than failed to connect. */
  readonly isTimeout: boolean;
  /** The idempotency key the request was sent with, or null for a read. */
  readonly idempotencyKey: string | null;

  constructor(message: string, options: { cause?: unknown; isTimeout: boolean; idempotencyKey: string | null }) {
    super(message, { cause: options.cause });
    this.isTimeout = options.isTimeout;
    this.idempotencyKey = options.idempotencyKey;
  }
}

/**
 * A webhook failed verification: no signature header, a signature made with another secret or
 * over another body, a timestamp outside the tolerance, or a body that is not JSON. Answer the
 * sender with a 400 and do not act on the event.
 */
export class KoloSignatureError extends KoloError {
  override name = 'KoloSignatureError';
}

/** The `KoloApiError` subclass for an error answer (by code first, then by HTTP status). */
export function apiErrorFor(init: KoloApiErrorInit): KoloApiError {
  if (init.code === 'VALIDATION_ERROR' || init.code === 'INVALID_PARAMETER') return new KoloValidationError(init);
  if (init.code === 'IDEMPOTENCY_KEY_REUSED') return new KoloIdempotencyError(init);
  if (init.status === 401) return new KoloAuthenticationError(init);
  if (init.status === 403) return new KoloPermissionError(init);
  if (init.status === 404) return new KoloNotFoundError(init);
  if (init.status === 429) return new KoloRateLimitError(init);
  return new KoloApiError(init);
}
