import { describe, expect, it } from 'vitest';
import { requestAccessToken, sendWithBearer, type BearerTokenError } from './bearer-send.ts';
import { createTokenCache, type FetchFn, type OperatorResponse, type OperatorUnreachable } from './operator-http.ts';

/** A token cache whose fetches hand out `token-1`, `token-2`… (or `failure`), counted. */
function countingTokens(failure?: BearerTokenError) {
  let fetches = 0;
  const tokens = createTokenCache<BearerTokenError>(
    () => 0,
    0,
    async () => {
      fetches++;
      return failure ?? { token: `token-${fetches}`, expiresInSeconds: 3600 };
    },
  );
  return { tokens, fetches: () => fetches };
}

const response = (status: number): OperatorResponse => ({ kind: 'RESPONSE', status, text: '', json: undefined });

/** A sender answering `answers` in turn and recording the tokens it was given. */
function sender(...answers: (OperatorResponse | OperatorUnreachable)[]) {
  const sentWith: string[] = [];
  return {
    sentWith,
    send: async (token: string) => {
      sentWith.push(token);
      return answers[sentWith.length - 1] ?? response(599);
    },
  };
}

describe('sendWithBearer', () => {
  it('sends once with the cached token when the operator accepts it', async () => {
    const { tokens, fetches } = countingTokens();
    await tokens.get('app');
    const { send, sentWith } = sender(response(200));
    expect(await sendWithBearer(tokens, 'app', 'test token', new AbortController().signal, send)).toEqual(response(200));
    expect(sentWith).toEqual(['token-1']);
    expect(fetches()).toBe(1);
  });

  it('renews the token once on a 401 and resends with the new one', async () => {
    const { tokens, fetches } = countingTokens();
    const { send, sentWith } = sender(response(401), response(202));
    expect(await sendWithBearer(tokens, 'app', 'test token', new AbortController().signal, send)).toEqual(response(202));
    expect(sentWith).toEqual(['token-1', 'token-2']);
    expect(fetches()).toBe(2);
  });

  it('never renews twice: a second 401 is the answer, for the connector to read', async () => {
    const { tokens, fetches } = countingTokens();
    const { send, sentWith } = sender(response(401), response(401), response(200));
    expect(await sendWithBearer(tokens, 'app', 'test token', new AbortController().signal, send)).toEqual(response(401));
    expect(sentWith).toEqual(['token-1', 'token-2']);
    expect(fetches()).toBe(2);
  });

  it('returns no answer as it is, without renewing: the request may have arrived', async () => {
    const { tokens, fetches } = countingTokens();
    const timeout: OperatorUnreachable = { kind: 'UNREACHABLE', error: 'POST /pay: timeout after 10 ms' };
    const { send, sentWith } = sender(timeout, response(200));
    expect(await sendWithBearer(tokens, 'app', 'test token', new AbortController().signal, send)).toEqual(timeout);
    expect(sentWith).toEqual(['token-1']);
    expect(fetches()).toBe(1);
  });

  it('sends nothing without a token: NOT_SENT when the token fetch got no answer, TOKEN_REFUSED when refused', async () => {
    const unreachable = countingTokens({ kind: 'UNREACHABLE', error: 'token: HTTP 503' });
    const first = sender(response(200));
    expect(await sendWithBearer(unreachable.tokens, 'app', 'test token', new AbortController().signal, first.send)).toEqual({ kind: 'NOT_SENT', error: 'token: HTTP 503' });
    expect(first.sentWith).toEqual([]);

    const refused = countingTokens({ kind: 'TOKEN_REFUSED', error: 'token: HTTP 400' });
    const second = sender(response(200));
    expect(await sendWithBearer(refused.tokens, 'app', 'test token', new AbortController().signal, second.send)).toEqual({ kind: 'TOKEN_REFUSED', error: 'token: HTTP 400' });
    expect(second.sentWith).toEqual([]);
  });

  it('sends nothing once its caller has given up while waiting for the token', async () => {
    const { tokens } = countingTokens();
    const controller = new AbortController();
    controller.abort();
    const { send, sentWith } = sender(response(200));
    expect(await sendWithBearer(tokens, 'app', 'test token', controller.signal, send)).toEqual({ kind: 'NOT_SENT', error: 'test token: abandoned by Kolo' });
    expect(sentWith).toEqual([]);
  });
});

describe('requestAccessToken', () => {
  const tokenRequest = { method: 'POST' as const, url: 'http://operator.test/token', headers: { Authorization: 'Basic c2VjcmV0' }, body: 'grant_type=client_credentials' };
  const answering = (status: number, body: unknown): FetchFn => async () => ({ status, text: JSON.stringify(body) });

  it('gives the token and its lifetime, or the default lifetime when the operator names none', async () => {
    expect(await requestAccessToken(answering(200, { access_token: 'tok-1', expires_in: 180 }), tokenRequest, 1000, 'Test token', 3600)).toEqual({ token: 'tok-1', expiresInSeconds: 180 });
    expect(await requestAccessToken(answering(200, { access_token: 'tok-2' }), tokenRequest, 1000, 'Test token', 3600)).toEqual({ token: 'tok-2', expiresInSeconds: 3600 });
  });

  it('is TOKEN_REFUSED on a refusal, naming the status and the operator’s code but no credential', async () => {
    const refused = await requestAccessToken(answering(401, { error: 'invalid_client' }), tokenRequest, 1000, 'Test token', 3600);
    expect(refused).toEqual({ kind: 'TOKEN_REFUSED', error: 'Test token: HTTP 401 invalid_client' });
    expect(await requestAccessToken(answering(200, { token_type: 'Bearer' }), tokenRequest, 1000, 'Test token', 3600)).toEqual({ kind: 'TOKEN_REFUSED', error: 'Test token: HTTP 200' });
  });

  it('is UNREACHABLE on a 5xx or no answer', async () => {
    expect(await requestAccessToken(answering(503, {}), tokenRequest, 1000, 'Test token', 3600)).toEqual({ kind: 'UNREACHABLE', error: 'Test token: HTTP 503' });
    const reset: FetchFn = async () => {
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    };
    expect(await requestAccessToken(reset, tokenRequest, 1000, 'Test token', 3600)).toEqual({ kind: 'UNREACHABLE', error: 'POST /token: ECONNRESET' });
  });
});
