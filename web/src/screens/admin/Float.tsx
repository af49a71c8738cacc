/** Staff: each LIVE rail's operator float, drift, pay-outs in flight and queued, watermarks and state; ADMIN reads a balance now. */
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { useAdminFloat, useReadFloat, type RailFloat } from '../../hooks/api/admin-float';
import { ErrorBox, Money, QueryView } from '../../ui';

function Amount({ amount, currency }: { amount: number | null; currency: string }) {
  const { t } = useTranslation();
  return amount === null ? <>{t('float.unknown')}</> : <Money amount={amount} currency={currency} />;
}

function FloatRow({ float, isAdmin, onRead, isReading }: { float: RailFloat; isAdmin: boolean; onRead: () => void; isReading: boolean }) {
  const { t } = useTranslation();
  const c = float.currency;
  return (
    <li>
      <div className="row">
        <span className="row-main">
          <span className="ref">{float.railCode}</span>
          <span>
            {t('float.operatorBalance')} : <Amount amount={float.operatorBalance} currency={c} />
            {float.operatorBalanceReadAt && <span className="muted"> ({t('float.readAt', { at: new Date(float.operatorBalanceReadAt).toLocaleString() })})</span>}
          </span>
          {!float.hasBalanceQuery && <span className="muted">{t('float.noBalanceQuery')}</span>}
          {float.lastReadError && <span className="muted">{t('float.lastError', { error: float.lastReadError })}</span>}
          <span className="muted">
            {t('float.ledgerFloat')} : <Money amount={float.ledgerFloat} currency={c} /> · {t('float.drift')} : <Amount amount={float.drift} currency={c} />
          </span>
          <span className="muted">
            {t('float.inFlight')} : <Money amount={float.inFlight} currency={c} /> · {t('float.sendable')} : <Amount amount={float.sendable} currency={c} />
          </span>
          <span className="muted">
            {t('float.queued', { count: float.queuedCount })} (<Money amount={float.queuedAmount} currency={c} />) · {t('float.watermarks', { low: float.lowWatermark, critical: float.criticalWatermark })}
          </span>
        </span>
        <span className="row-side">
          <span className={`badge badge-float-${float.state.toLowerCase()}`}>{t(`float.state.${float.state}`)}</span>
          {isAdmin && (
            <button type="button" className="secondary" aria-label={`${t('float.readNow')} ${float.railCode}`} disabled={isReading} onClick={onRead}>
              {t('float.readNow')}
            </button>
          )}
        </span>
      </div>
    </li>
  );
}

export default function Float() {
  const { t } = useTranslation();
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const floats = useAdminFloat();
  const read = useReadFloat();
  return (
    <>
      <h1>{t('float.title')}</h1>
      <p className="muted">{t('float.help')}</p>
      {!isAdmin && <p className="muted">{t('admin.readOnly')}</p>}
      {read.error && <ErrorBox error={read.error} />}
      <QueryView query={floats}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">{t('float.empty')}</p>
          ) : (
            <ul className="rows">
              {list.map((float) => (
                <FloatRow key={float.railCode} float={float} isAdmin={isAdmin} isReading={read.isPending} onRead={() => read.mutate(float.railCode)} />
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}
