/**
 * The audit log: one row per state-changing dashboard action, with the actor, role, action, target,
 * time, client IP, request id and the before/after values of the fields that changed. Secret fields
 * are never recorded, whatever the caller passes.
 */
import { count, desc } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { auditLog } from '../db/schema-dashboard.ts';
import type { Services } from '../services.ts';

/** Who did it, from where. `actorId` is null for anonymous actions (sign-up, reset). */
export interface AuditActor {
  actorId: string | null;
  actorRole: string | null;
  clientIp: string | null;
}

/** One entry to record. */
export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

const SECRET_FIELDS = /password|secret|token|hash|plaintext|otp/i;

function clean(values: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!values) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (SECRET_FIELDS.test(key)) continue;
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/** Before/after of the fields of `after` whose value differs from `before` (Dates compared by time). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>) {
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const key of Object.keys(after)) {
    const x = before[key] instanceof Date ? (before[key] as Date).toISOString() : before[key];
    const y = after[key] instanceof Date ? (after[key] as Date).toISOString() : after[key];
    if (key === 'updatedAt' || JSON.stringify(x) === JSON.stringify(y)) continue;
    b[key] = before[key] ?? null;
    a[key] = after[key] ?? null;
  }
  return { before: b, after: a };
}

/** Records `entry` (inside `db`, which may be the action's own transaction). */
export async function recordAudit(services: Pick<Services, 'clock' | 'requestId'> & { db: Db }, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await services.db.insert(auditLog).values({
    actorId: actor.actorId,
    actorRole: actor.actorRole,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    clientIp: actor.clientIp,
    requestId: services.requestId ?? null,
    before: clean(entry.before),
    after: clean(entry.after),
    createdAt: services.clock.now(),
  });
}

/** A page of the audit log, newest first. */
export async function listAudit(db: Db, page: number, size: number) {
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(auditLog);
  const rows = await db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(size).offset(page * size);
  return { rows, total: Number(total) };
}
