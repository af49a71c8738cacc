/**
 * What the token-based connectors (MTN MoMo, Orange Money, Orange Web Payment, Airtel Money)
 * share: the request for an OAuth 2.0 access token, and the bearer-token loop (send with the
 * cached token, and on a 401 renew the token once and send again).
 */
import { callOperator, stringField, untilAborted, type FetchFn, type OperatorNotSent, type OperatorRequest, type OperatorResponse, type OperatorUnreachable, type TokenCache } from './operator-http.ts';

/** Why a connector has no token: the operator refused its credentials, or gave no answer (timeout, 5xx). */
export type BearerTokenError = { kind: 'TOKEN_REFUSED'; error: string } | { kind: 'UNREACHABLE'; error: string };

/**
 * What `sendWithBearer` answers: the operator's response (a second 401 included), no answer
 * (`UNREACHABLE`: the request may have arrived), `NOT_SENT` (nothing left Kolo: its caller gave up
 * first, or no token could be had), or `TOKEN_REFUSED` (the operator refused the credentials:
 * nothing was sent).
 */
export type BearerSent = OperatorResponse | OperatorUnreachable | OperatorNotSent | { kind: 'TOKEN_REFUSED'; error: string };

/**
 * Sends one request with the bearer token `tokens` holds under `key`: `send(token)` makes the call
 * (`callOperator` with the caller's `signal`). The operators answer 401 to a token they no longer
 * accept without processing the request, so on a first 401 the token is renewed (`force`) and the
 * request sent once more; the answer to that second sending, a 401 included, is returned as it is,
 * for the connector to read as the operator's answer. Never renews twice.
 *
 * The wait for a token stops when `signal` aborts (`untilAborted`, `what` naming it: NOT_SENT). A
 * token fetch that got no answer is NOT_SENT (the request never left); a refused one is returned as
 * `TOKEN_REFUSED`. Never throws for operator outcomes.
 */
export async function sendWithBearer(
  tokens: TokenCache<BearerTokenError>,
  key: string,
  what: string,
  signal: AbortSignal,
  send: (token: string) => Promise<OperatorResponse | OperatorUnreachable | OperatorNotSent>,
): Promise<BearerSent> {
  for (let attempt = 0; ; attempt++) {
    const token = await untilAborted(tokens.get(key, attempt > 0), signal, what);
    // No token: the request never left.
    if (!('token' in token)) return token.kind === 'UNREACHABLE' ? { kind: 'NOT_SENT', error: token.error } : token;
    const answer = await send(token.token);
    if (answer.kind === 'RESPONSE' && answer.status === 401 && attempt === 0) continue;
    return answer;
  }
}

/** An access token and how long it lives, seconds. */
export interface AccessToken {
  token: string;
  expiresInSeconds: number;
}

/**
 * Asks an operator's token endpoint for an access token (OAuth 2.0 client credentials, RFC 6749
 * §4.4): `request` as the operator documents it (its URL, credentials and body). A 200 with an
 * `access_token` is the token, living `expires_in` seconds (`defaultExpiresInSeconds` when
 * absent); no answer or a 5xx is UNREACHABLE; anything else is TOKEN_REFUSED. The error names
 * `label`, the status and the operator's `error` code, never a credential.
 */
export async function requestAccessToken(
  fetch: FetchFn,
  request: OperatorRequest,
  timeoutMs: number,
  label: string,
  defaultExpiresInSeconds: number,
): Promise<AccessToken | BearerTokenError> {
  const answer = await callOperator(fetch, request, timeoutMs);
  if (answer.kind === 'UNREACHABLE') return answer;
  const token = stringField(answer.json, 'access_token');
  const expiresIn = Number((answer.json as { expires_in?: unknown } | undefined)?.expires_in);
  if (answer.status === 200 && token) return { token, expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : defaultExpiresInSeconds };
  const code = stringField(answer.json, 'error');
  const detail = `${label}: HTTP ${answer.status}${code ? ` ${code}` : ''}`;
  return answer.status >= 500 ? { kind: 'UNREACHABLE', error: detail } : { kind: 'TOKEN_REFUSED', error: detail };
}
