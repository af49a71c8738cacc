/**
 * The sandbox rail: what every TEST key uses, whatever provider code it names. It never leaves
 * the process. The outcome is chosen by the last three digits of the national number
 * (documented in the README, "Sandbox numbers"); any other number succeeds after
 * `delayMs`. Outcomes are a pure function of (number, time since initiation), so a restart
 * or a re-poll always gives the same answer.
 */
import type { Clock } from '../../domain/clock.ts';
import { nationalNumber } from '../../domain/msisdn.ts';
import type { Connector, FailureCode, InitiateResult, PrepareResult, StatusQuery, StatusResult } from '../connector.ts';

/** A magic number's behaviour. */
export type SandboxBehaviour =
  | { kind: 'SUCCEED'; late: boolean }
  | { kind: 'DECLINE'; payIn: FailureCode; payOut: FailureCode; reason: string }
  | { kind: 'NEVER_RESOLVES' }
  | { kind: 'UNREACHABLE' };

/** Magic suffixes (last three digits of the national number) and what they do. */
export const SANDBOX_SUFFIXES: Record<string, SandboxBehaviour> = {
  '100': { kind: 'DECLINE', payIn: 'REJECTED_BY_PAYER', payOut: 'PAYEE_NOT_ALLOWED', reason: 'Transaction refusée par le client.' },
  '101': { kind: 'DECLINE', payIn: 'WRONG_PIN', payOut: 'PAYEE_NOT_ALLOWED', reason: 'Code PIN incorrect.' },
  '102': { kind: 'DECLINE', payIn: 'INSUFFICIENT_FUNDS', payOut: 'MERCHANT_INSUFFICIENT_FUNDS', reason: 'Solde insuffisant.' },
  '103': { kind: 'DECLINE', payIn: 'PAYER_NOT_FOUND', payOut: 'PAYEE_NOT_FOUND', reason: "Ce numéro n'a pas de compte mobile money." },
  '104': { kind: 'DECLINE', payIn: 'ACCOUNT_BLOCKED', payOut: 'ACCOUNT_BLOCKED', reason: 'Compte mobile money bloqué.' },
  '105': { kind: 'DECLINE', payIn: 'LIMIT_EXCEEDED', payOut: 'LIMIT_EXCEEDED', reason: 'Plafond de transaction atteint.' },
  '106': { kind: 'DECLINE', payIn: 'TIMEOUT', payOut: 'TIMEOUT', reason: "Le client n'a pas validé à temps." },
  '107': { kind: 'DECLINE', payIn: 'PROVIDER_ERROR', payOut: 'PROVIDER_ERROR', reason: "Erreur de l'opérateur." },
  '197': { kind: 'UNREACHABLE' },
  '198': { kind: 'SUCCEED', late: true },
  '199': { kind: 'NEVER_RESOLVES' },
};

/** What a sandbox number does: the magic suffix's behaviour, or a plain success. */
export function sandboxBehaviour(msisdn: string, country: string): SandboxBehaviour {
  const national = nationalNumber(msisdn, country);
  return SANDBOX_SUFFIXES[national.slice(-3)] ?? { kind: 'SUCCEED', late: false };
}

/**
 * The sandbox's own transaction id of a successful request (what an operator prints on the
 * customer's SMS): `SBX` and the reference's last 10 characters, upper-cased; the same at every
 * question.
 */
export function sandboxTransactionId(reference: string): string {
  return `SBX${reference.slice(-10).toUpperCase()}`;
}

/** Options of the sandbox connector; delays in milliseconds from initiation. */
export interface SandboxOptions {
  clock: Clock;
  delayMs: number;
  lateDelayMs: number;
}

/** Creates the sandbox connector. */
export function createSandboxConnector(options: SandboxOptions): Connector {
  return {
    operator: 'SANDBOX',
    preparesLocally: true,
    async prepare(request): Promise<PrepareResult> {
      return { kind: 'PREPARED', operatorReference: `SBX-${request.reference}` };
    },
    async initiate(request, signal): Promise<InitiateResult> {
      // Like an operator's connector: once the caller has given up, nothing is sent.
      if (signal.aborted) return { kind: 'NOT_SENT', error: 'sandbox: abandoned by Kolo before it was sent' };
      if (sandboxBehaviour(request.msisdn, request.rail.country).kind === 'UNREACHABLE') {
        return { kind: 'UNREACHABLE', error: 'sandbox: operator unreachable (magic number …197)' };
      }
      return { kind: 'ACCEPTED', operatorReference: `SBX-${request.reference}` };
    },
    async getStatus(query: StatusQuery): Promise<StatusResult> {
      const behaviour = sandboxBehaviour(query.msisdn, query.rail.country);
      const elapsedMs = options.clock.now().getTime() - query.initiatedAt.getTime();
      switch (behaviour.kind) {
        case 'UNREACHABLE':
          return { kind: 'UNREACHABLE', error: 'sandbox: operator unreachable (magic number …197)' };
        case 'NEVER_RESOLVES':
          return { kind: 'PENDING' };
        case 'SUCCEED': {
          const waitMs = behaviour.late ? options.lateDelayMs : options.delayMs;
          return elapsedMs >= waitMs
            ? { kind: 'SUCCEEDED', operatorReference: `SBX-${query.reference}`, operatorTransactionId: sandboxTransactionId(query.reference) }
            : { kind: 'PENDING' };
        }
        case 'DECLINE':
          if (elapsedMs < options.delayMs) return { kind: 'PENDING' };
          return {
            kind: 'FAILED',
            failureCode: query.direction === 'PAY_IN' ? behaviour.payIn : behaviour.payOut,
            failureReason: behaviour.reason,
          };
      }
    },
  };
}
