/**
 * `@kolo/sdk`: a typed client of Kolo's merchant API (`new Kolo({ apiKey, baseUrl })`), its
 * errors, and webhook verification.
 */
export { Kolo, type KoloOptions } from './client.ts';
export type { RequestOptions } from './request.ts';
export {
  KOLO_ERROR_CODES,
  KoloApiError,
  KoloAuthenticationError,
  KoloConnectionError,
  KoloError,
  KoloIdempotencyError,
  KoloNotFoundError,
  KoloPermissionError,
  KoloRateLimitError,
  KoloSignatureError,
  KoloValidationError,
  type KoloApiErrorInit,
  type KoloErrorCode,
} from './errors.ts';
export {
  DEFAULT_BACKOFF,
  MAX_RETRIES_LIMIT,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  retryDelayMs,
  shouldRetry,
  type AttemptOutcome,
  type BackoffOptions,
  type RetryInput,
} from './retry.ts';
export {
  DEFAULT_TOLERANCE_SECONDS,
  generateTestHeaders,
  verifyWebhook,
  type TestHeadersInput,
  type VerifyWebhookInput,
  type WebhookHeaders,
  type WebhookScheme,
} from './webhooks.ts';
export type * from './types.ts';
export { SDK_VERSION } from './version.ts';
