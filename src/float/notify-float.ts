/**
 * Telling staff of a float crossing: when a rail's state differs from the one they were last
 * notified of, the notified state moves by compare-and-set (so one instance, one notification),
 * every active ADMIN account gets an e-mail, and the audit log records a `FLOAT_STATE_CHANGED`
 * event. A rail staying in one state notifies nothing more; getting back to OK notifies once.
 * The first known state of a rail notifies only if it is not OK.
 */
import { and, eq } from 'drizzle-orm';
import { accounts } from '../db/schema.ts';
import { moveFloatState } from '../db/queries/float.ts';
import { sendMail } from '../dashboard/mail.ts';
import { recordAudit } from '../dashboard/audit.ts';
import type { Services } from '../services.ts';
import type { RailFloat } from './rail-float.ts';

const STATE_WORDS: Record<string, string> = { OK: 'rétabli (OK)', LOW: 'bas (LOW)', CRITICAL: 'critique (CRITICAL)', UNKNOWN: 'inconnu' };

/** Notifies staff when `float.state` differs from the notified state; returns true when it did. */
export async function notifyCrossing(services: Services, float: RailFloat): Promise<boolean> {
  // An unknown balance is no news: staff keep the last state they were told of.
  if (float.state === 'UNKNOWN' || float.state === float.notifiedState) return false;
  const isFirst = float.notifiedState === 'UNKNOWN';
  const moved = await moveFloatState(services.db, {
    railCode: float.railCode,
    from: isFirst ? null : float.notifiedState,
    to: float.state,
    now: services.clock.now(),
  });
  // The row may exist in UNKNOWN (created by a "wallet short" report): move it from there.
  const movedFromUnknown = !moved && isFirst
    ? await moveFloatState(services.db, { railCode: float.railCode, from: 'UNKNOWN', to: float.state, now: services.clock.now() })
    : false;
  if (!moved && !movedFromUnknown) return false;
  if (isFirst && float.state === 'OK') return false;
  await recordAudit(services, { actorId: null, actorRole: 'SYSTEM', clientIp: null }, {
    action: 'FLOAT_STATE_CHANGED',
    targetType: 'RAIL',
    targetId: float.railCode,
    before: { state: float.notifiedState },
    after: { state: float.state, sendable: float.sendable, operatorBalance: float.operatorBalance, lowWatermark: float.lowWatermark, criticalWatermark: float.criticalWatermark },
  });
  services.log.warn({ rail: float.railCode, from: float.notifiedState, to: float.state, sendable: float.sendable }, 'float: state crossed a watermark');
  const staff = await services.db
    .select({ email: accounts.email })
    .from(accounts)
    .where(and(eq(accounts.role, 'ADMIN'), eq(accounts.status, 'ACTIVE')));
  const amount = (n: number | null) => (n === null ? 'inconnu' : `${n} ${float.currency}`);
  for (const { email } of staff) {
    try {
      await sendMail(services, {
        to: email,
        subject: `Kolo : float ${float.railCode} ${STATE_WORDS[float.state]}`,
        text: [
          `Le float de ${float.railCode} est ${STATE_WORDS[float.state]} (état précédent : ${STATE_WORDS[float.notifiedState]}).`,
          `Solde opérateur : ${amount(float.operatorBalance)} ; disponible pour les transferts : ${amount(float.sendable)}.`,
          `Seuils : bas ${float.lowWatermark}, critique ${float.criticalWatermark} ; transferts en file d'attente : ${float.queuedCount}.`,
        ].join('\n'),
      });
    } catch (error) {
      services.log.error({ err: error, rail: float.railCode }, 'float: staff e-mail not sent');
    }
  }
  return true;
}
