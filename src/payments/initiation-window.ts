/**
 * When an operator's "no record of it" may be believed. Kolo gives up on a connector call after
 * `CONNECTOR_TIMEOUT_MS` and aborts it (every connector stops at once and sends nothing more), but
 * a request already on its way may still reach the operator and be recorded there later. So each
 * initiation carries `inFlightUntil`: the instant after which Kolo sends nothing more of it, plus
 * `INITIATION_LANDING_MS`. It is written before the initiation is sent (the send deadline: the
 * call is aborted then at the latest), and again when an ambiguous answer is recorded (the moment
 * the call ended); an acknowledged initiation has none. Until it has passed, a status query is
 * told the initiation is `IN_FLIGHT`, and a `NOT_FOUND` is no answer: nothing fails and no
 * reservation is released on it. Unknown never fails money.
 */
import type { InitiationState, StatusResult } from '../connectors/connector.ts';

/**
 * How long after Kolo stopped sending an initiation the operator may still record it. A gateway
 * that has received a request waits for its backend up to its own timeout: 300 s by default on
 * Azure API Management (its `forward-request` policy,
 * https://learn.microsoft.com/azure/api-management/forward-request-policy), which fronts MTN's
 * API (`Ocp-Apim-Subscription-Key`). The same bound serves every operator.
 */
export const INITIATION_LANDING_MS = 300_000;

/** Room, after an initiation's send deadline, for the answer of its call to be recorded. */
const ANSWER_RECORD_MS = 1000;

/** `inFlightUntil` of an initiation of which nothing leaves Kolo after `lastSendAt`. */
export function inFlightUntilAfter(lastSendAt: Date): Date {
  return new Date(lastSendAt.getTime() + INITIATION_LANDING_MS);
}

/** The send deadline of an initiation stored with `inFlightUntil`: no request of it leaves Kolo after it. */
export function sendDeadlineOf(inFlightUntil: Date): Date {
  return new Date(inFlightUntil.getTime() - INITIATION_LANDING_MS);
}

/**
 * Until when the initiation stored with `inFlightUntil` may still be being sent, its answer not yet
 * recorded (its send deadline and a second): before then, unprompted, nobody asks the operator
 * about it (the question would only be answered "nothing yet").
 */
export function initiationLeaseEnd(inFlightUntil: Date): Date {
  return new Date(sendDeadlineOf(inFlightUntil).getTime() + ANSWER_RECORD_MS);
}

/**
 * What a status query asked at `now` is told about an initiation (`StatusQuery.initiation`):
 * ACCEPTED when the operator acknowledged it; IN_FLIGHT while one of its requests may still reach
 * the operator (before `inFlightUntil`); UNKNOWN otherwise. `now` must be taken before the query
 * is sent: only an answer given after `inFlightUntil` can prove the initiation never landed.
 */
export function initiationStateOf(record: { initiationOutcome: string | null; inFlightUntil: Date | null }, now: Date): InitiationState {
  if (record.initiationOutcome === 'ACCEPTED') return 'ACCEPTED';
  return record.inFlightUntil !== null && now < record.inFlightUntil ? 'IN_FLIGHT' : 'UNKNOWN';
}

/**
 * The answer to act on: a NOT_FOUND counts only for an `UNKNOWN` initiation (nothing of it can
 * still arrive); for an acknowledged one or one still in flight it is no answer (PENDING),
 * whatever the connector made of the operator's silence. Every other answer is kept.
 */
export function conclusiveStatus(status: StatusResult, initiation: InitiationState): StatusResult {
  return status.kind === 'NOT_FOUND' && initiation !== 'UNKNOWN' ? { kind: 'PENDING' } : status;
}
