/**
 * Starts a committed PENDING transaction at its rail (operators.md §0 rule 1: persist first,
 * then call the operator). The connector's answer decides what follows:
 * ACCEPTED → poll from now on, until the rail's deadline; FAILED → the transaction fails with
 * the operator's failure code; UNREACHABLE → ambiguous, so it stays PENDING and the poller asks
 * again (the operator deduplicates on our reference, so a repeated initiation is safe).
 */
import { and, eq } from 'drizzle-orm';
import { transactionEvents, transactions } from '../db/schema.ts';
import type { Connector } from '../connectors/connector.ts';
import type { Services } from '../services.ts';
import { applyTransition } from './apply-transition.ts';
import type { RailRow } from './rails.ts';
import type { TransactionRow } from './transaction-view.ts';
import { nextPollDelayMs } from './poll-schedule.ts';

/** Initiates `row` on `rail` through `connector`. Never throws for operator outcomes. */
export async function initiateTransaction(
  services: Pick<Services, 'db' | 'clock' | 'config' | 'log' | 'statusListeners'>,
  row: TransactionRow,
  rail: RailRow,
  connector: Connector,
): Promise<void> {
  const msisdn = row.direction === 'PAY_IN' ? row.payerAccount : row.beneficiaryAccount;
  if (!msisdn) throw new Error(`transaction ${row.reference} has no account to initiate`);
  const initiatedAt = services.clock.now();
  const result = await withTimeout(
    connector.initiate({
      direction: row.direction as 'PAY_IN' | 'PAY_OUT',
      reference: row.reference,
      rail: { code: rail.code, operator: rail.operator, country: rail.country, currency: rail.currency },
      amount: row.amount,
      currency: row.currency,
      msisdn,
      description: row.description,
      initiatedAt,
    }),
    services.config.connectorTimeoutMs,
  );
  const now = services.clock.now();
  if (result.kind === 'FAILED') {
    await applyTransition(services, {
      transactionId: row.id,
      event: 'DECLINED',
      cause: 'INITIATION',
      failureCode: result.failureCode,
      failureReason: result.failureReason,
    });
    return;
  }
  await services.db.transaction(async (tx) => {
    await tx
      .update(transactions)
      .set({
        initiatedAt,
        deadlineAt: new Date(initiatedAt.getTime() + rail.pendingTimeoutSeconds * 1000),
        operatorReference: result.kind === 'ACCEPTED' ? result.operatorReference : null,
        nextPollAt: new Date(now.getTime() + nextPollDelayMs(0)),
        updatedAt: now,
      })
      .where(and(eq(transactions.id, row.id), eq(transactions.status, 'PENDING')));
    await tx.insert(transactionEvents).values({
      transactionId: row.id,
      fromStatus: 'PENDING',
      toStatus: 'PENDING',
      cause: result.kind === 'ACCEPTED' ? 'INITIATED' : 'INITIATION_UNREACHABLE',
      detail: { rail: rail.code, ...(result.kind === 'UNREACHABLE' ? { error: result.error } : {}) },
      createdAt: now,
    });
  });
  if (result.kind === 'UNREACHABLE') {
    services.log.warn({ reference: row.reference, rail: rail.code }, 'operator unreachable at initiation; left PENDING');
  }
}

/** Resolves with `promise`, or with UNREACHABLE when it takes longer than `timeoutMs` or rejects. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | { kind: 'UNREACHABLE'; error: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ kind: 'UNREACHABLE'; error: string }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'UNREACHABLE', error: `timeout after ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([promise.catch((e: unknown) => ({ kind: 'UNREACHABLE' as const, error: String(e) })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
