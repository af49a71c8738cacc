/**
 * Staff (ADMIN): a rail's LIVE availability set by hand, per direction (pay-ins, pay-outs), with
 * a reason; and the removal of what staff set, so that the traffic decides again. Both are
 * audited by the API (`RAIL_AVAILABILITY_SET`, `RAIL_AVAILABILITY_CLEARED`).
 */
import { useTranslation } from 'react-i18next';
import { useClearRailAvailability, useSetRailAvailability, type RailAvailability } from '../../hooks/api/admin-rails';
import { ErrorBox, Field, SelectField } from '../../ui';

/** The form for rail `code` (`name` to show); `current` is its availability per direction; `onDone` closes it. */
export function AvailabilityForm({ code, name, current, onDone }: { code: string; name: string; current: RailAvailability[]; onDone: () => void }) {
  const { t } = useTranslation();
  const set = useSetRailAvailability({ onSuccess: onDone });
  const clear = useClearRailAvailability();
  const directions: [RailAvailability['direction'], string][] = [
    ['PAY_IN', t('admin.availabilityPayIn')],
    ['PAY_OUT', t('admin.availabilityPayOut')],
  ];
  const statuses: [string, string][] = [
    ['CLOSED', t('admin.availabilityClosed')],
    ['DELAYED', t('admin.availabilityDelayed')],
    ['OPERATIONAL', t('admin.availabilityOperational')],
  ];
  const overridden = directions.filter(([direction]) => current.some((a) => a.direction === direction && a.source === 'OVERRIDE'));
  return (
    <form
      className="card rail-form"
      aria-label={t('admin.availabilityFormTitle', { name })}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const reason = String(form.get('reason') ?? '').trim();
        set.mutate({
          code,
          direction: String(form.get('direction')) as RailAvailability['direction'],
          status: String(form.get('status')) as RailAvailability['status'],
          ...(reason ? { reason } : {}),
        });
      }}
    >
      <h3>{t('admin.availabilityFormTitle', { name })}</h3>
      <SelectField label={t('admin.availabilityDirection')} name="direction" options={directions} defaultValue="PAY_IN" />
      <SelectField label={t('admin.availabilityStatus')} name="status" options={statuses} defaultValue="CLOSED" />
      <Field label={t('admin.availabilityReason')} name="reason" maxLength={200} />
      {set.error ? <ErrorBox error={set.error} /> : null}
      {clear.error ? <ErrorBox error={clear.error} /> : null}
      <div className="actions">
        <button type="submit" disabled={set.isPending}>
          {t('admin.availabilitySet')}
        </button>
        {overridden.map(([direction, label]) => (
          <button key={direction} type="button" className="secondary" disabled={clear.isPending} onClick={() => clear.mutate({ code, direction })}>
            {t('admin.availabilityClear', { direction: label })}
          </button>
        ))}
        <button type="button" className="secondary" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
