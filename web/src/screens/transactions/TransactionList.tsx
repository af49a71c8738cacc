/**
 * Transactions of the current environment: filters (status, direction, application, dates,
 * search) kept in the address, pages of 20, and the CSV export of the same filters.
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap, ApiFailure } from '../../api/client';
import { useSession } from '../../auth/session';
import { readerToday, serverDayBound } from '../../format';
import { ErrorBox, Field, Pager, QueryView, SelectField } from '../../ui';
import { TransactionRows } from './TransactionRows';

const STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED', 'REFUNDED'] as const;
type Status = (typeof STATUSES)[number];
const KINDS = ['CHECKOUT', 'CHARGE', 'FUND_COLLECTION', 'PAYOUT', 'WITHDRAWAL', 'REFUND'] as const;
type Kind = (typeof KINDS)[number];

/** The filters as the API reads them: the typed days (the user's) as bounds in server local time. */
function apiFilters<T extends { from?: string | undefined; to?: string | undefined }>(filters: T): T {
  return { ...filters, from: filters.from && serverDayBound(filters.from, 'from'), to: filters.to && serverDayBound(filters.to, 'to') };
}

export default function TransactionList() {
  const { t } = useTranslation();
  const { environment } = useSession();
  const [params, setParams] = useSearchParams();
  const [exportError, setExportError] = useState<unknown>(null);
  const [isExporting, setExporting] = useState(false);
  const filters = {
    environment,
    status: (params.get('status') || undefined) as Status | undefined,
    // The API lists pay-ins unless asked otherwise (SharePay's dashboard reads it so): ALL here.
    direction: (params.get('direction') || 'ALL') as 'PAY_IN' | 'PAY_OUT' | 'ALL',
    type: (params.get('type') || undefined) as Kind | undefined,
    provider: params.get('provider') || undefined,
    appId: params.get('appId') || undefined,
    from: params.get('from') || undefined,
    to: params.get('to') || undefined,
    search: params.get('search') || undefined,
  };
  const page = Number(params.get('page') ?? 0);
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => unwrap(api.GET('/api/v1/merchants/apps')) });
  const rails = useQuery({ queryKey: ['providers'], queryFn: () => unwrap(api.GET('/api/v1/merchants/providers')), staleTime: 300_000 });
  const list = useQuery({
    queryKey: ['transactions', filters, page],
    queryFn: () => unwrap(api.GET('/api/v1/merchants/transactions', { params: { query: { ...apiFilters(filters), page, size: 20 } } })),
    placeholderData: keepPreviousData,
  });

  async function exportCsv() {
    setExporting(true);
    setExportError(null);
    try {
      const { data, response } = await api.GET('/api/v1/merchants/transactions/export', { params: { query: apiFilters(filters) }, parseAs: 'blob' });
      if (!response.ok || !data) throw new ApiFailure(response.status, 'INTERNAL_SERVER_ERROR', null);
      const url = URL.createObjectURL(data as Blob);
      const link = document.createElement('a');
      link.href = url;
      // The API names the file with the server's date: the user's date instead.
      const name = /filename="?([^";]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'transactions.csv';
      link.download = name.replace(/-\d{4}-\d{2}-\d{2}\.csv$/, `-${readerToday()}.csv`);
      link.click();
      URL.revokeObjectURL(url);
    } catch (failure) {
      setExportError(failure);
    } finally {
      setExporting(false);
    }
  }

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
          <button type="button" className="secondary" onClick={() => void exportCsv()} disabled={isExporting}>
            {isExporting ? t('tx.exporting') : t('tx.export')}
          </button>
        </div>
      </form>
      {exportError !== null && <ErrorBox error={exportError} />}
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
