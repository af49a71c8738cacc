/**
 * Home: balances per currency (available, pending, reserved), today's volume and count, the
 * success rate and the daily volume chart over 7 or 30 days, and the latest transactions, all
 * for the environment of the TEST/LIVE switch and in the reader's days. Every figure is the
 * API's (hooks/api/home.tsx); the screen only formats them.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { formatCount, formatPercent, readerTimeZone } from '../../format';
import { useBalances } from '../../hooks/api/balances';
import { useHomePeriod, useHomeToday, type HomeInterval } from '../../hooks/api/home';
import { Money, QueryView } from '../../ui';
import { TransactionRows } from '../transactions/TransactionRows';
import { VolumeChart } from './VolumeChart';

/** The period the home screen opens on. */
export const HOME_INTERVAL: HomeInterval = 'LAST_7_DAYS';

/** The days of a period. */
const daysOf = (interval: HomeInterval) => (interval === 'LAST_7_DAYS' ? 7 : 30);

export default function Home() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [interval, setPeriod] = useState<HomeInterval>(HOME_INTERVAL);
  const days = daysOf(interval);
  // The reader's days: the browser's zone, or the one of the server render in progress.
  const timeZone = readerTimeZone();
  const balances = useBalances({ environment });
  const today = useHomeToday({ environment, timeZone });
  const period = useHomePeriod({ environment, timeZone, interval });

  return (
    <>
      <h1>{t('home.title')}</h1>
      <section aria-labelledby="balances">
        <h2 id="balances">{t('home.balances')}</h2>
        <QueryView query={balances}>
          {(lines) =>
            lines.length === 0 ? (
              <p className="muted">{t('home.noBalance')}</p>
            ) : (
              <div className="cards">
                {lines.map((line) => (
                  <div className="card balance" key={line.currency} role="group" aria-label={line.currency}>
                    <h3>{line.currency}</h3>
                    <dl>
                      <dt>{t('home.available')}</dt>
                      <dd className="big">
                        <Money amount={line.availableAmount} currency={line.currency} />
                      </dd>
                      <dt>{t('home.pending')}</dt>
                      <dd>
                        <Money amount={line.pendingAmount} currency={line.currency} />
                      </dd>
                      <dt>{t('home.reserved')}</dt>
                      <dd>
                        <Money amount={line.reservedAmount} currency={line.currency} />
                      </dd>
                      <dt>{t('home.batchReserved')}</dt>
                      <dd>
                        <Money amount={line.batchReservedAmount} currency={line.currency} />
                      </dd>
                    </dl>
                  </div>
                ))}
              </div>
            )
          }
        </QueryView>
      </section>

      <section aria-labelledby="today">
        <h2 id="today">{t('home.today')}</h2>
        <div className="cards">
          <QueryView query={today}>
            {(data) => (
              <>
                <div className="card kpi">
                  <span className="muted">{t('home.todayVolume')}</span>
                  <span className="big">{data.currency ? <Money amount={data.volume} currency={data.currency} /> : '—'}</span>
                </div>
                <div className="card kpi">
                  <span className="muted">{t('home.todayCount')}</span>
                  <span className="big">{formatCount(data.count, i18n.language)}</span>
                </div>
              </>
            )}
          </QueryView>
          <QueryView query={period}>
            {(data) => (
              <div className="card kpi">
                <span className="muted">{t('home.successRate', { days })}</span>
                <span className="big">{data.successRate === null ? '—' : formatPercent(data.successRate, i18n.language)}</span>
              </div>
            )}
          </QueryView>
        </div>
      </section>

      <section aria-labelledby="chart">
        <div className="section-head">
          <h2 id="chart">{t('home.chart')}</h2>
          <div className="segmented" role="group" aria-label={t('home.period')}>
            {(['LAST_7_DAYS', 'LAST_30_DAYS'] as const).map((choice) => (
              <button key={choice} type="button" aria-pressed={interval === choice} onClick={() => setPeriod(choice)}>
                {choice === 'LAST_7_DAYS' ? t('home.days7') : t('home.days30')}
              </button>
            ))}
          </div>
        </div>
        <QueryView query={period}>
          {(data) => <VolumeChart labels={data.labels} volumes={data.volumes} currency={data.currency ?? 'XAF'} language={i18n.language} label={t('home.chartLabel', { days })} />}
        </QueryView>
      </section>

      <section aria-labelledby="last">
        <div className="section-head">
          <h2 id="last">{t('home.last')}</h2>
          <Link to="/transactions">{t('home.all')}</Link>
        </div>
        <QueryView query={today}>
          {(data) => (data.lastTransactions.length === 0 ? <p className="muted">{t('home.noTransaction')}</p> : <TransactionRows items={data.lastTransactions} />)}
        </QueryView>
      </section>
    </>
  );
}
