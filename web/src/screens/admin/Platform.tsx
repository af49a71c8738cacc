/** Staff: the platform's figures over a period (merchants, transactions, volumes, per rail). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatCount, formatPercent } from '../../format';
import { usePlatformStats } from '../../hooks/api/admin-platform';
import { Money, QueryView } from '../../ui';

export default function Platform() {
  const { t, i18n } = useTranslation();
  const [environment, setEnvironment] = useState<'LIVE' | 'TEST'>('LIVE');
  const stats = usePlatformStats({ environment });
  const rate = (value: number | null) => (value === null ? '—' : formatPercent(value, i18n.language));
  return (
    <>
      <div className="section-head">
        <h1>{t('admin.platform')}</h1>
        <div className="segmented" role="group" aria-label={t('shell.environment')}>
          {(['LIVE', 'TEST'] as const).map((env) => (
            <button key={env} type="button" aria-pressed={environment === env} onClick={() => setEnvironment(env)}>
              {env}
            </button>
          ))}
        </div>
      </div>
      <QueryView query={stats}>
        {(data) => (
          <>
            <p className="muted">{t('admin.period', { from: data.from.slice(0, 10), to: data.to.slice(0, 10) })}</p>
            <div className="cards">
              <div className="card kpi">
                <span className="muted">{t('admin.merchantCount')}</span>
                <span className="big">{formatCount(data.merchants.total, i18n.language)}</span>
                <span className="muted">{t('admin.activeNew', { active: data.merchants.active, fresh: data.merchants.newInPeriod })}</span>
              </div>
              <div className="card kpi">
                <span className="muted">{t('admin.transactionCount')}</span>
                <span className="big">{formatCount(data.transactions.count, i18n.language)}</span>
                <span className="muted">{t('home.successRate', { days: 30 })} : {rate(data.transactions.successRate)}</span>
              </div>
              {data.volumes.map((volume) => (
                <div className="card kpi" key={volume.currency}>
                  <span className="muted">{t('admin.volume', { currency: volume.currency })}</span>
                  <span className="big">
                    <Money amount={volume.payInVolume} currency={volume.currency} />
                  </span>
                  <span className="muted">
                    {t('tx.payOut')} : <Money amount={volume.payOutVolume} currency={volume.currency} />
                  </span>
                </div>
              ))}
            </div>
            <h2>{t('admin.byRail')}</h2>
            {data.byRail.length === 0 ? (
              <p className="muted">{t('tx.empty')}</p>
            ) : (
              <ul className="rows">
                {data.byRail.map((rail) => (
                  <li className="row" key={`${rail.provider}-${rail.currency}`}>
                    <span className="row-main">
                      <span className="ref">{rail.provider}</span>
                      <span className="muted">
                        {formatCount(rail.count, i18n.language)} · {rate(rail.successRate)}
                      </span>
                    </span>
                    <span className="row-side">
                      <Money amount={rail.volume} currency={rail.currency} />
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </QueryView>
    </>
  );
}
