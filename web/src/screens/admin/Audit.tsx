/** ADMIN: the audit log, newest first. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { formatDateTime } from '../../format';
import { PagedList } from '../../ui';

export default function Audit() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(0);
  const log = useQuery({
    queryKey: ['audit', page],
    queryFn: () => unwrap(api.GET('/api/v1/admin/audit-log', { params: { query: { page, size: 50 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1>{t('admin.audit')}</h1>
      <PagedList query={log} page={page} onPage={setPage}>
        {(entry) => (
          <li className="row" key={entry.id}>
            <span className="row-main">
              <span className="ref">{entry.action}</span>
              <span className="muted">
                {entry.targetType} {entry.targetId ?? ''}
              </span>
              <span className="muted">
                {entry.actorRole ?? '—'} {entry.actorId ?? ''} · {entry.clientIp ?? '—'}
              </span>
            </span>
            <span className="row-side muted">{formatDateTime(entry.createdAt, i18n.language)}</span>
          </li>
        )}
      </PagedList>
    </>
  );
}
