/**
 * Home: balances per currency (available, pending, reserved), today's volume and count, the
 * success rate and the daily volume chart over 7 or 30 days, and the latest transactions, all
 * for the environment of the TEST/LIVE switch.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { Client } from 'openapi-fetch';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import type { Environment } from '../../prefs';
import { useSession } from '../../auth/session';
import { formatCount, formatPercent, readerTimeZone, serverStartOfDay } from '../../format';
import { Money, QueryView } from '../../ui';
import { TransactionRows } from '../transactions/TransactionRows';
import { VolumeChart } from './VolumeChart';

/** The period the home screen opens on, in days. */
export const HOME_DAYS = 7;

/**
 * The home screen's four calls through `client` (the app's, or the server renderer's): balances,
 * today's summary with the last transactions, the success statistics (from the start of the
 * reader's day `days - 1` days ago) and the chart of `days`, all with the reader's days (the
 * zone read when called: the browser's, or the one of the server render in progress).
 */
export function homeQueries(client: Client<paths>, environment: Environment, days: 7 | 30) {
  const from = serverStartOfDay(days - 1);
  const timeZone = readerTimeZone();
  return {
    balances: queryOptions({
      queryKey: ['balance', environment],
      queryFn: () => unwrap(client.GET('/api/v1/merchants/balance', { params: { query: { environment } } })),
    }),
    summary: queryOptions({
      queryKey: ['dashboard', environment],
      queryFn: () => unwrap(client.GET('/api/v1/merchants/dashboard', { params: { query: { environment, timeZone } } })),
    }),
    stats: queryOptions({
      queryKey: ['stats-in', environment, days],
      queryFn: () => unwrap(client.GET('/api/v1/merchants/transactions-in/stats', { params: { query: { environment, from } } })),
    }),
    chart: queryOptions({
      queryKey: ['chart', environment, days],
      queryFn: () =>
        unwrap(
          client.GET('/api/v1/merchants/transactions/chart', {
            params: { query: { environment, interval: days === 7 ? 'LAST_7_DAYS' : 'LAST_30_DAYS', groupBy: 'STATUS', direction: 'PAY_IN', timeZone } },
          }),
        ),
    }),
  };
}

export default function Home() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [days, setDays] = useState<7 | 30>(HOME_DAYS);
  const queries = homeQueries(api, environment, days);
  const balances = useQuery(queries.balances);
  const summary = useQuery(queries.summary);
  const stats = useQuery(queries.stats);
  const chart = useQuery(queries.chart);

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
          <QueryView query={summary}>
            {(data) => (
              <>
                <div className="card kpi">
                  <span className="muted">{t('home.todayVolume')}</span>
                  <span className="big">{data.currency ? <Money amount={data.dailyVolume} currency={data.currency} /> : '—'}</span>
                </div>
                <div className="card kpi">
                  <span className="muted">{t('home.todayCount')}</span>
                  <span className="big">{formatCount(data.todayTransactionCount, i18n.language)}</span>
                </div>
              </>
            )}
          </QueryView>
          <QueryView query={stats}>
            {(data) => {
              const finished = data.total - data.pendingCount;
              return (
                <div className="card kpi">
                  <span className="muted">{t('home.successRate', { days })}</span>
                  <span className="big">{finished > 0 ? formatPercent((data.successCount + data.refundedCount) / finished, i18n.language) : '—'}</span>
                </div>
              );
            }}
          </QueryView>
        </div>
      </section>

      <section aria-labelledby="chart">
        <div className="section-head">
          <h2 id="chart">{t('home.chart')}</h2>
          <div className="segmented" role="group" aria-label={t('home.period')}>
            {([7, 30] as const).map((n) => (
              <button key={n} type="button" aria-pressed={days === n} onClick={() => setDays(n)}>
                {n === 7 ? t('home.days7') : t('home.days30')}
              </button>
            ))}
          </div>
        </div>
        <QueryView query={chart}>
          {(data) => {
            const success = data.series.filter((s) => s.key === 'SUCCESS' || s.key === 'REFUNDED');
            const volumes = data.labels.map((_, i) => success.reduce((sum, s) => sum + (s.volumes[i] ?? 0), 0));
            return (
              <VolumeChart labels={data.labels} volumes={volumes} currency={data.currency ?? 'XAF'} language={i18n.language} label={t('home.chartLabel', { days })} />
            );
          }}
        </QueryView>
      </section>

      <section aria-labelledby="last">
        <div className="section-head">
          <h2 id="last">{t('home.last')}</h2>
          <Link to="/transactions">{t('home.all')}</Link>
        </div>
        <QueryView query={summary}>
          {(data) => (data.lastFiveTransactions.length === 0 ? <p className="muted">{t('home.noTransaction')}</p> : <TransactionRows items={data.lastFiveTransactions} />)}
        </QueryView>
      </section>
    </>
  );
}
