/**
 * Transactions of the current environment: filters (status, direction, application, dates,
 * search) kept in the address, pages of 20, and the CSV export of the same filters.
 */
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { readerToday, serverDayBound } from '../../format';
import { useApplications } from '../../hooks/api/applications';
import { useProviders } from '../../hooks/api/providers';
import { useExportTransactions, useTransactions, type TransactionListQuery, type TransactionStatus, type TransactionType } from '../../hooks/api/transactions';
import { ErrorBox, Field, Pager, QueryView, SelectField } from '../../ui';
import { TransactionRows } from './TransactionRows';

/** The statuses and types offered in the filters, in this order. */
const STATUSES: TransactionStatus[] = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED', 'REFUNDED'];
const KINDS: TransactionType[] = ['CHECKOUT', 'CHARGE', 'FUND_COLLECTION', 'PAYOUT', 'WITHDRAWAL', 'REFUND'];

/** The filters as the API reads them: the typed days (the user's) as bounds in server local time. */
function apiFilters<T extends { from?: string | undefined; to?: string | undefined }>(filters: T): T {
  return { ...filters, from: filters.from && serverDayBound(filters.from, 'from'), to: filters.to && serverDayBound(filters.to, 'to') };
}

export default function TransactionList() {
  const { t } = useTranslation();
  const { environment } = useSession();
  const [params, setParams] = useSearchParams();
  const filters = {
    environment,
    status: (params.get('status') || undefined) as TransactionStatus | undefined,
    // The API lists pay-ins unless asked otherwise (SharePay's dashboard reads it so): ALL here.
    direction: (params.get('direction') || 'ALL') as NonNullable<TransactionListQuery['direction']>,
    type: (params.get('type') || undefined) as TransactionType | undefined,
    provider: params.get('provider') || undefined,
    appId: params.get('appId') || undefined,
    from: params.get('from') || undefined,
    to: params.get('to') || undefined,
    search: params.get('search') || undefined,
  };
  const page = Number(params.get('page') ?? 0);
  const apps = useApplications();
  const rails = useProviders();
  const list = useTransactions({ ...apiFilters(filters), page, size: 20 });
  const exporting = useExportTransactions({
    onSuccess: ({ file, fileName }) => {
      const url = URL.createObjectURL(file);
      const link = document.createElement('a');
      link.href = url;
      // The API names the file with the server's date: the user's date instead.
      link.download = fileName.replace(/-\d{4}-\d{2}-\d{2}\.csv$/, `-${readerToday()}.csv`);
      link.click();
      URL.revokeObjectURL(url);
    },
  });

  return (
    <>
      <h1>{t('tx.title')}</h1>
      <form
        className="filters"
        aria-label={t('tx.filters')}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          const next = new URLSearchParams();
          for (const [key, value] of form) if (typeof value === 'string' && value.trim()) next.set(key, value.trim());
          setParams(next);
        }}
      >
        <Field label={t('tx.search')} name="search" type="search" defaultValue={filters.search ?? ''} maxLength={64} />
        <SelectField label={t('tx.status')} name="status" defaultValue={filters.status ?? ''} options={[['', t('common.all')], ...STATUSES.map((s): [string, string] => [s, t(`status.${s}`)])]} />
        <SelectField
          label={t('tx.direction')}
          name="direction"
          defaultValue={filters.direction === 'ALL' ? '' : filters.direction}
          options={[
            ['', t('common.all')],
            ['PAY_IN', t('tx.payIn')],
            ['PAY_OUT', t('tx.payOut')],
          ]}
        />
        <SelectField label={t('tx.kind')} name="type" defaultValue={filters.type ?? ''} options={[['', t('common.all')], ...KINDS.map((k): [string, string] => [k, k])]} />
        <SelectField
          key={`rail-${rails.data?.length ?? 0}`}
          label={t('tx.rail')}
          name="provider"
          defaultValue={filters.provider ?? ''}
          options={[['', t('common.all')], ...(rails.data ?? []).map((rail): [string, string] => [rail.code, rail.name])]}
        />
        <SelectField
          key={`app-${apps.data?.length ?? 0}`}
          label={t('tx.application')}
          name="appId"
          defaultValue={filters.appId ?? ''}
          options={[['', t('common.all')], ...(apps.data ?? []).map((app): [string, string] => [app.id, app.name])]}
        />
        <Field label={t('tx.from')} name="from" type="date" defaultValue={filters.from ?? ''} />
        <Field label={t('tx.to')} name="to" type="date" defaultValue={filters.to ?? ''} />
        <div className="actions">
          <button type="submit">{t('tx.apply')}</button>
          <button type="button" className="secondary" onClick={() => setParams(new URLSearchParams())}>
            {t('tx.reset')}
          </button>
          <button type="button" className="secondary" onClick={() => exporting.mutate(apiFilters(filters))} disabled={exporting.isPending}>
            {exporting.isPending ? t('tx.exporting') : t('tx.export')}
          </button>
        </div>
      </form>
      {exporting.error && <ErrorBox error={exporting.error} />}
      <QueryView query={list}>
        {(data) =>
          data.content.length === 0 ? (
            <p className="muted">{t('tx.empty')}</p>
          ) : (
            <>
              <p className="muted">{t('tx.count', { count: data.totalElements })}</p>
              <TransactionRows items={data.content} />
              <Pager page={page} data={data} onPage={(next) => setParams((p) => (p.set('page', String(next)), p))} />
            </>
          )
        }
      </QueryView>
    </>
  );
}
