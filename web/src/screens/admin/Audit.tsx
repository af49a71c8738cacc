/** ADMIN: the audit log, newest first. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import { useAuditLog } from '../../hooks/api/admin-platform';
import { PagedList } from '../../ui';

export default function Audit() {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(0);
  const log = useAuditLog({ page, size: 50 });
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
