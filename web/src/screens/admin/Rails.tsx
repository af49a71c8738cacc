/**
 * Staff: the payment rails (limits, fees, active, LIVE availability per direction); ADMIN turns one
 * on or off, edits its limits and fees, and sets or clears its LIVE availability by hand.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { useAdminRails, useRailAvailability, useToggleRail, type RailAvailability } from '../../hooks/api/admin-rails';
import { ErrorBox, Money, QueryView, StatusBadge } from '../../ui';
import { AvailabilityForm } from './AvailabilityForm';
import { RailForm } from './RailForm';

export default function Rails() {
  const { t } = useTranslation();
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const [editing, setEditing] = useState<string | null>(null);
  const [settingAvailability, setSettingAvailability] = useState<string | null>(null);
  const rails = useAdminRails();
  const toggle = useToggleRail();
  const availability = useRailAvailability();
  const words: Record<string, string> = {
    OPERATIONAL: t('admin.availabilityOperational'),
    DELAYED: t('admin.availabilityDelayed'),
    CLOSED: t('admin.availabilityClosed'),
  };
  /** One direction's availability as words, saying when staff set it; null until known (inactive rails have none). */
  const availabilityText = (code: string, direction: RailAvailability['direction']): string | null => {
    const found = availability.data?.find((a) => a.providerCode === code && a.direction === direction);
    if (!found) return null;
    const word = words[found.status] ?? found.status;
    return found.source === 'OVERRIDE' ? t('admin.availabilityOverride', { status: word }) : word;
  };
  return (
    <>
      <h1>{t('admin.rails')}</h1>
      {!isAdmin && <p className="muted">{t('admin.readOnly')}</p>}
      {toggle.error && <ErrorBox error={toggle.error} />}
      {availability.error && <ErrorBox error={availability.error} onRetry={() => void availability.refetch()} />}
      <QueryView query={rails}>
        {(list) => (
          <ul className="rows">
            {list.map((rail) => (
              <li key={rail.id}>
                <div className="row">
                  <span className="row-main">
                    <span className="ref">{rail.name}</span>
                    <span className="muted">
                      {rail.code} · {rail.country} · {rail.currency}
                    </span>
                    <span className="muted">
                      {t('admin.limits')} : <Money amount={rail.minAmount} currency={rail.currency} /> – <Money amount={rail.maxAmount} currency={rail.currency} />
                    </span>
                    <span className="muted">
                      {t('admin.fees', { payIn: `${rail.feePercentage} % + ${rail.feeFixed}`, payOut: `${rail.payOutFeePercentage} % + ${rail.payOutFeeFixed}` })}
                    </span>
                    {availabilityText(rail.code, 'PAY_IN') !== null && (
                      <span className="muted">
                        {t('admin.availability', { payIn: availabilityText(rail.code, 'PAY_IN'), payOut: availabilityText(rail.code, 'PAY_OUT') })}
                      </span>
                    )}
                  </span>
                  <span className="row-side">
                    <StatusBadge status={rail.active ? 'ACTIVE' : 'INACTIVE'} />
                    {isAdmin && (
                      <button type="button" className="secondary" aria-label={`${rail.active ? t('admin.disable') : t('admin.enable')} ${rail.name}`} disabled={toggle.isPending} onClick={() => toggle.mutate(rail.id)}>
                        {rail.active ? t('admin.disable') : t('admin.enable')}
                      </button>
                    )}
                    {isAdmin && editing !== rail.id && (
                      <button type="button" className="secondary" aria-label={`${t('admin.edit')} ${rail.name}`} onClick={() => setEditing(rail.id)}>
                        {t('admin.edit')}
                      </button>
                    )}
                    {isAdmin && availabilityText(rail.code, 'PAY_IN') !== null && settingAvailability !== rail.code && (
                      <button type="button" className="secondary" aria-label={`${t('admin.availabilityButton')} ${rail.name}`} onClick={() => setSettingAvailability(rail.code)}>
                        {t('admin.availabilityButton')}
                      </button>
                    )}
                  </span>
                </div>
                {isAdmin && editing === rail.id && <RailForm rail={rail} onDone={() => setEditing(null)} />}
                {isAdmin && settingAvailability === rail.code && (
                  <AvailabilityForm
                    code={rail.code}
                    name={rail.name}
                    current={availability.data?.filter((a) => a.providerCode === rail.code) ?? []}
                    onDone={() => setSettingAvailability(null)}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </>
  );
}
