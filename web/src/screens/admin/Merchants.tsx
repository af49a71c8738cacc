/**
 * Staff: the merchants, by account status, with suspend and reactivate for ADMIN. SUPPORT
 * reads the same list and sees no write button (the API refuses SUPPORT's writes anyway). A
 * merchant's name opens its page (MerchantDetail).
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { formatDateTime } from '../../format';
import { useAdminMerchants, useSetMerchantStatus, type AccountStatus } from '../../hooks/api/admin-merchants';
import { ErrorBox, Field, PagedList, SelectField, StatusBadge } from '../../ui';

/** The statuses offered in the filter, in this order. */
const STATUSES: AccountStatus[] = ['ACTIVE', 'SUSPENDED', 'PENDING_VERIFICATION', 'INACTIVE', 'DELETED'];

export default function Merchants() {
  const { t, i18n } = useTranslation();
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const [status, setStatus] = useState<AccountStatus | ''>('');
  const [page, setPage] = useState(0);
  const [search, setSearch] = useState('');
  const list = useAdminMerchants({ page, size: 50, ...(status ? { status } : {}), ...(search ? { search } : {}) });
  const setAccountStatus = useSetMerchantStatus();

  return (
    <>
      <h1>{t('admin.merchants')}</h1>
      {!isAdmin && <p className="muted">{t('admin.readOnly')}</p>}
      <form
        className="inline-search"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(String(new FormData(event.currentTarget).get('search') ?? '').trim());
          setPage(0);
        }}
      >
        <Field label={t('admin.search')} name="search" type="search" maxLength={100} />
        <button type="submit">{t('tx.apply')}</button>
      </form>
      <SelectField
        label={t('admin.filterStatus')}
        value={status}
        onChange={(event) => {
          setStatus(event.target.value as AccountStatus | '');
          setPage(0);
        }}
        options={[['', t('common.all')], ...STATUSES.map((s): [string, string] => [s, t(`status.${s}`)])]}
      />
      {setAccountStatus.error && <ErrorBox error={setAccountStatus.error} />}
      <PagedList query={list} page={page} onPage={setPage} empty={t('admin.empty')}>
        {(merchant) => (
          <li key={merchant.id} className="row">
            <span className="row-main">
              <Link className="ref" to={`/merchants/${merchant.id}`}>
                {merchant.fullName}
              </Link>
              <span className="muted">{merchant.email}</span>
              <span className="muted">
                {t('admin.kyc')} : {merchant.kycLevel} · {formatDateTime(merchant.createdAt, i18n.language)}
              </span>
            </span>
            <span className="row-side">
              <StatusBadge status={merchant.status} />
              {isAdmin && merchant.status === 'ACTIVE' && (
                <button
                  type="button"
                  className="danger"
                  aria-label={`${t('admin.suspend')} ${merchant.email}`}
                  disabled={setAccountStatus.isPending}
                  onClick={() => {
                    if (window.confirm(t('admin.suspendConfirm', { name: merchant.fullName }))) setAccountStatus.mutate({ id: merchant.id, status: 'SUSPENDED' });
                  }}
                >
                  {t('admin.suspend')}
                </button>
              )}
              {isAdmin && merchant.status === 'SUSPENDED' && (
                <button
                  type="button"
                  className="secondary"
                  aria-label={`${t('admin.reactivate')} ${merchant.email}`}
                  disabled={setAccountStatus.isPending}
                  onClick={() => setAccountStatus.mutate({ id: merchant.id, status: 'ACTIVE' })}
                >
                  {t('admin.reactivate')}
                </button>
              )}
            </span>
          </li>
        )}
      </PagedList>
    </>
  );
}
