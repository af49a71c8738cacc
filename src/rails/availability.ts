/**
 * Availability of each rail, per direction (PAY_IN, PAY_OUT): OPERATIONAL, DELAYED or CLOSED,
 * computed from this deployment's own traffic over a sliding window, unless staff said otherwise
 * for LIVE (`rail_availability_overrides`, which wins until it is removed; the sandbox that TEST
 * keys reach follows its own traffic only).
 *
 * Over the last `AVAILABILITY_WINDOW_MS`, among the transactions of the rail and direction that
 * were sent to the operator, and the hosted checkout's attempts (pay-ins) on the rail, in one
 * environment (TEST traffic reaches the sandbox only):
 * - errors: those whose initiation got no definite answer (time-out, reset, 5xx: `UNKNOWN`) or
 *   that failed for the operator's sake (`PROVIDER_UNAVAILABLE`, `PROVIDER_ERROR`, `TIMEOUT`);
 * - slow: those that took more than `SLOW_AFTER_MS` from initiation to a final status, or are
 *   still pending that long after it.
 * With fewer than `AVAILABILITY_MIN_SAMPLE` of them the rail is OPERATIONAL (too little traffic to
 * say otherwise); else CLOSED from `CLOSED_ERROR_SHARE` of errors, DELAYED from
 * `DELAYED_ERROR_SHARE` of errors or `DELAYED_SLOW_SHARE` of slow ones. Declines (insufficient
 * funds, wrong PIN…) are the customer's answer, not the rail's trouble: they count as answers.
 */
import { and, eq, gte, isNotNull, sql } from 'drizzle-orm';
import type { Environment } from '../connectors/registry.ts';
import { checkoutAttempts } from '../db/schema-checkout.ts';
import { providers, railAvailabilityOverrides, transactions } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { keptBy } from '../db/client.ts';

/** A rail's availability for one direction. */
export type AvailabilityStatus = 'OPERATIONAL' | 'DELAYED' | 'CLOSED';
/** The statuses, in order of gravity. */
export const AVAILABILITY_STATUSES = ['OPERATIONAL', 'DELAYED', 'CLOSED'] as const satisfies readonly AvailabilityStatus[];
/** A direction of money on a rail. */
export type RailDirection = 'PAY_IN' | 'PAY_OUT';
/** Both directions. */
export const RAIL_DIRECTIONS = ['PAY_IN', 'PAY_OUT'] as const satisfies readonly RailDirection[];

/** The sliding window the traffic is read over: 15 minutes. */
export const AVAILABILITY_WINDOW_MS = 15 * 60_000;
/** Fewest transactions sent in the window for the traffic to say anything. */
export const AVAILABILITY_MIN_SAMPLE = 5;
/** Share of errors and time-outs from which a rail is DELAYED. */
export const DELAYED_ERROR_SHARE = 0.2;
/** Share of errors and time-outs from which a rail is CLOSED. */
export const CLOSED_ERROR_SHARE = 0.9;
/** Time from initiation to a final status beyond which a transaction is slow: 2 minutes. */
export const SLOW_AFTER_MS = 2 * 60_000;
/** Share of slow transactions from which a rail is DELAYED. */
export const DELAYED_SLOW_SHARE = 0.5;

/** The failure codes that say the operator, not the customer, was at fault. */
const OPERATOR_FAULTS = ['PROVIDER_UNAVAILABLE', 'PROVIDER_ERROR', 'TIMEOUT'];

/** What the window's traffic of one rail and direction shows. */
export interface ObservedTraffic {
  /** Transactions sent to the operator in the window. */
  sampleSize: number;
  errorCount: number;
  slowCount: number;
}

/** A rail's availability for one direction, with what it was decided from. */
export interface RailAvailability {
  providerCode: string;
  direction: RailDirection;
  status: AvailabilityStatus;
  /** OBSERVED: computed from the traffic; OVERRIDE: set by staff. */
  source: 'OBSERVED' | 'OVERRIDE';
  /** The status the traffic alone gives. */
  observedStatus: AvailabilityStatus;
  traffic: ObservedTraffic;
  override: { status: AvailabilityStatus; reason: string | null; setBy: string | null; setAt: Date } | null;
}

/** The status the window's traffic gives (the rules of this module's header). Pure. */
export function observedStatus(traffic: ObservedTraffic): AvailabilityStatus {
  if (traffic.sampleSize < AVAILABILITY_MIN_SAMPLE) return 'OPERATIONAL';
  const errorShare = traffic.errorCount / traffic.sampleSize;
  const slowShare = traffic.slowCount / traffic.sampleSize;
  if (errorShare >= CLOSED_ERROR_SHARE) return 'CLOSED';
  if (errorShare >= DELAYED_ERROR_SHARE || slowShare >= DELAYED_SLOW_SHARE) return 'DELAYED';
  return 'OPERATIONAL';
}

const key = (code: string, direction: string) => `${code} ${direction}`;

/**
 * The availability of every rail in `codes`, both directions, in `environment`, at the clock's
 * now: one grouped read of the window's transactions (by `transactions_created_idx`: a
 * transaction is sent soon after it is created), one of its checkout attempts (by
 * `checkout_attempts_created_idx`) and one of the overrides.
 */
export async function railAvailabilities(services: Pick<Services, 'db' | 'clock'>, environment: Environment, codes: readonly string[]): Promise<RailAvailability[]> {
  if (codes.length === 0) return [];
  const now = services.clock.now();
  const since = new Date(now.getTime() - AVAILABILITY_WINDOW_MS);
  const slowBefore = new Date(now.getTime() - SLOW_AFTER_MS);
  const faults = sql.join(OPERATOR_FAULTS.map((c) => sql`${c}`), sql`, `);
  const rows = await services.db
    .select({
      code: transactions.paymentMethod,
      direction: transactions.direction,
      sampleSize: sql<number>`count(*)::int`,
      errorCount: sql<number>`(count(*) filter (where ${transactions.initiationOutcome} = 'UNKNOWN' or ${transactions.failureCode} in (${faults})))::int`,
      slowCount: sql<number>`(count(*) filter (where (${transactions.status} <> 'PENDING' and ${transactions.completedAt} - ${transactions.initiatedAt} > make_interval(secs => ${SLOW_AFTER_MS / 1000})) or (${transactions.status} = 'PENDING' and ${transactions.initiatedAt} < ${slowBefore})))::int`,
    })
    .from(transactions)
    .where(
      and(
        gte(transactions.createdAt, since),
        gte(transactions.initiatedAt, since),
        isNotNull(transactions.paymentMethod),
        eq(transactions.environment, environment),
        sql`${transactions.paymentMethod} in (${sql.join(codes.map((c) => sql`${c}`), sql`, `)})`,
      ),
    )
    .groupBy(transactions.paymentMethod, transactions.direction);
  // The hosted checkout's attempts: each is a pay-in sent to the operator (the checkout's own row is not).
  const attemptRows = await services.db
    .select({
      code: checkoutAttempts.railCode,
      sampleSize: sql<number>`count(*)::int`,
      errorCount: sql<number>`(count(*) filter (where ${checkoutAttempts.initiationOutcome} = 'UNKNOWN' or ${checkoutAttempts.failureCode} in (${faults})))::int`,
      slowCount: sql<number>`(count(*) filter (where (${checkoutAttempts.status} <> 'PENDING' and ${checkoutAttempts.completedAt} - ${checkoutAttempts.initiatedAt} > make_interval(secs => ${SLOW_AFTER_MS / 1000})) or (${checkoutAttempts.status} = 'PENDING' and ${checkoutAttempts.initiatedAt} < ${slowBefore})))::int`,
    })
    .from(checkoutAttempts)
    .innerJoin(transactions, eq(transactions.id, checkoutAttempts.transactionId))
    .where(
      and(
        gte(checkoutAttempts.createdAt, since),
        gte(checkoutAttempts.initiatedAt, since),
        eq(transactions.environment, environment),
        sql`${checkoutAttempts.railCode} in (${sql.join(codes.map((c) => sql`${c}`), sql`, `)})`,
      ),
    )
    .groupBy(checkoutAttempts.railCode);
  const traffic = new Map<string, ObservedTraffic>();
  for (const r of [...rows.map((row) => ({ ...row, code: row.code! })), ...attemptRows.map((row) => ({ ...row, direction: 'PAY_IN' }))]) {
    const k = key(r.code, r.direction);
    const seen = traffic.get(k) ?? { sampleSize: 0, errorCount: 0, slowCount: 0 };
    traffic.set(k, { sampleSize: seen.sampleSize + r.sampleSize, errorCount: seen.errorCount + r.errorCount, slowCount: seen.slowCount + r.slowCount });
  }
  // Staff speak of the operators: their word is LIVE's, never the sandbox's.
  const overrideRows = environment === 'LIVE' ? await services.db.select().from(railAvailabilityOverrides) : [];
  const overrides = new Map(overrideRows.map((o) => [key(o.providerCode, o.direction), o]));
  return codes.flatMap((code) =>
    RAIL_DIRECTIONS.map((direction): RailAvailability => {
      const seen = traffic.get(key(code, direction)) ?? { sampleSize: 0, errorCount: 0, slowCount: 0 };
      const observed = observedStatus(seen);
      const o = overrides.get(key(code, direction));
      const override = o ? { status: o.status as AvailabilityStatus, reason: o.reason, setBy: o.setBy, setAt: o.setAt } : null;
      return { providerCode: code, direction, status: override?.status ?? observed, source: override ? 'OVERRIDE' : 'OBSERVED', observedStatus: observed, traffic: seen, override };
    }),
  );
}

/** The availability of every active rail in the LIVE environment, for staff. */
export async function liveRailAvailabilities(services: Pick<Services, 'db' | 'clock'>): Promise<RailAvailability[]> {
  const rails = await services.db.select({ code: providers.code }).from(providers).where(eq(providers.active, true)).orderBy(providers.code);
  return railAvailabilities(services, 'LIVE', rails.map((r) => r.code));
}

/** How long a rail's computed availability answers the charges' check, milliseconds of the service clock. */
export const CLOSED_CHECK_TTL_MS = 5000;

const closedChecks = Symbol('rail closed checks');

/**
 * The availability of `code` for `direction` in `environment` (computed or set by staff), as the
 * checks before sending read it: computed at most once per `CLOSED_CHECK_TTL_MS` per rail,
 * direction and environment in this process (concurrent checks share one computation), so a
 * charge or a pay-out costs no scan of the window's traffic; setting or clearing an override here
 * forgets the answers at once.
 */
export async function railStatus(services: Pick<Services, 'db' | 'clock'>, environment: Environment, code: string, direction: RailDirection): Promise<AvailabilityStatus> {
  const cache = keptBy(services.db, closedChecks, () => new Map<string, { until: number; status: Promise<AvailabilityStatus> }>());
  const now = services.clock.now().getTime();
  const k = `${environment}:${key(code, direction)}`;
  const hit = cache.get(k);
  if (hit && hit.until > now) return hit.status;
  const status = railAvailabilities(services, environment, [code]).then((all) => all.find((a) => a.direction === direction)?.status ?? 'OPERATIONAL');
  cache.set(k, { until: now + CLOSED_CHECK_TTL_MS, status });
  status.catch(() => cache.delete(k));
  return status;
}

/**
 * True when `code` is CLOSED for `direction` in `environment` (`railStatus`): the check a new
 * charge and a checkout attempt pass (`payments/create-charge.ts`,
 * `payments/start-checkout-attempt.ts`, which then answer RAIL_CLOSED).
 */
export async function isRailClosed(services: Pick<Services, 'db' | 'clock'>, environment: Environment, code: string, direction: RailDirection): Promise<boolean> {
  return (await railStatus(services, environment, code, direction)) === 'CLOSED';
}

/**
 * True when LIVE pay-outs on `code` must wait rather than be sent: its PAY_OUT availability is
 * DELAYED or CLOSED (`railStatus`). They wait in the float queue (`payments/float-queue.ts`) and
 * go out, once each, when the rail is OPERATIONAL again.
 */
export async function isPayOutHeld(services: Pick<Services, 'db' | 'clock'>, code: string): Promise<boolean> {
  return (await railStatus(services, 'LIVE', code, 'PAY_OUT')) !== 'OPERATIONAL';
}

/** Forgets the cached answers of `isRailClosed` (an override changed). */
export function forgetClosedChecks(services: Pick<Services, 'db'>): void {
  keptBy(services.db, closedChecks, () => new Map()).clear();
}
