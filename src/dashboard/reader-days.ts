/**
 * The reader's days: the dashboard's "today" and its charts' days and hours are those of a time
 * zone the client names (an IANA name, e.g. Africa/Nairobi), computed in SQL with
 * `AT TIME ZONE` so that days of 23 or 25 hours (DST changes) have their real length.
 * Without a zone the days are UTC days.
 */
import type { Db } from '../db/client.ts';
import { zoneDayBounds } from '../db/queries/dashboard.ts';
import { ApiError } from '../domain/errors.ts';

/** The zone of the days when the client names none. */
export const DEFAULT_DAY_ZONE = 'UTC';

/**
 * The IANA name `timeZone` as this runtime spells it (e.g. `africa/nairobi` → `Africa/Nairobi`),
 * or null when it is not a zone name: unknown to Intl, or an offset such as `+03:00` (which
 * PostgreSQL would read as a POSIX zone, west of Greenwich).
 */
export function canonicalTimeZone(timeZone: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(timeZone)) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The message of a `timeZone` that is not a zone name (or not one the database knows). */
export const TIME_ZONE_MESSAGE = 'doit être un fuseau horaire IANA (ex. Africa/Nairobi)';

/** True when `error` (or its cause, as Drizzle wraps them) is PostgreSQL's 22023 "time zone not recognized". */
function isUnknownZone(error: unknown): boolean {
  let e = error;
  for (let depth = 0; depth < 3 && typeof e === 'object' && e !== null; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (code === '22023' && typeof message === 'string' && message.includes('time zone')) return true;
    e = cause;
  }
  return false;
}

/**
 * The first instant of the day in `timeZone` that is `daysBefore` days before the day holding
 * `now` (0: today's midnight in that zone), and the first instant of the day after `now`'s.
 * Throws ApiError INVALID_PARAMETER (`timeZone`) when the database does not know the zone (its
 * time zone data older than the runtime's).
 */
export async function dayBounds(db: Db, now: Date, timeZone: string, daysBefore = 0): Promise<{ from: Date; to: Date }> {
  return zoneDayBounds(db, { now, timeZone, daysBefore }).catch((error: unknown) => {
    if (isUnknownZone(error)) throw new ApiError('INVALID_PARAMETER', { data: { timeZone: TIME_ZONE_MESSAGE } });
    throw error;
  });
}
