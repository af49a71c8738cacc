/**
 * Staff's availability overrides of a rail (`rails/availability.ts` reads them): set and
 * cleared from the staff API, each audited. Kept apart from the reads so that the payments core,
 * which asks whether a rail holds its pay-outs, does not load the audit log.
 */
import { and, eq } from 'drizzle-orm';
import { providers, railAvailabilityOverrides } from '../db/schema.ts';
import { ApiError } from '../domain/errors.ts';
import { forgetClosedChecks, type AvailabilityStatus, type RailDirection } from '../rails/index.ts';
import type { Services } from '../services.ts';
import { recordAudit, type AuditActor } from './audit.ts';

/**
 * Sets staff's availability of `providerCode` for `direction` (replacing any earlier one), audited
 * as RAIL_AVAILABILITY_SET. Throws PROVIDER_NOT_FOUND for an unknown rail.
 */
export async function setAvailabilityOverride(
  services: Services,
  actor: AuditActor,
  input: { providerCode: string; direction: RailDirection; status: AvailabilityStatus; reason?: string | undefined },
): Promise<void> {
  const [rail] = await services.db.select({ code: providers.code }).from(providers).where(eq(providers.code, input.providerCode));
  if (!rail) throw new ApiError('PROVIDER_NOT_FOUND');
  const values = { status: input.status, reason: input.reason ?? null, setBy: actor.actorId, setAt: services.clock.now() };
  await services.db
    .insert(railAvailabilityOverrides)
    .values({ providerCode: input.providerCode, direction: input.direction, ...values })
    .onConflictDoUpdate({ target: [railAvailabilityOverrides.providerCode, railAvailabilityOverrides.direction], set: values });
  forgetClosedChecks(services);
  await recordAudit(services, actor, { action: 'RAIL_AVAILABILITY_SET', targetType: 'PROVIDER', targetId: input.providerCode, after: { direction: input.direction, status: input.status, reason: values.reason } });
}

/**
 * Removes staff's availability of `providerCode` for `direction` (the traffic decides again),
 * audited as RAIL_AVAILABILITY_CLEARED. Throws RESOURCE_NOT_FOUND when there is none.
 */
export async function clearAvailabilityOverride(services: Services, actor: AuditActor, providerCode: string, direction: RailDirection): Promise<void> {
  const deleted = await services.db
    .delete(railAvailabilityOverrides)
    .where(and(eq(railAvailabilityOverrides.providerCode, providerCode), eq(railAvailabilityOverrides.direction, direction)))
    .returning();
  if (deleted.length === 0) throw new ApiError('RESOURCE_NOT_FOUND');
  forgetClosedChecks(services);
  await recordAudit(services, actor, { action: 'RAIL_AVAILABILITY_CLEARED', targetType: 'PROVIDER', targetId: providerCode, before: { direction, status: deleted[0]!.status } });
}
