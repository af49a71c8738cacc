/**
 * An application's webhooks: the signing secret (created or rotated, shown once), a test
 * event, and the delivery log with replay. The URL itself is edited with the settings.
 */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { formatDateTime } from '../../format';
import { ErrorBox, PagedList, QueryView, SecretOnce, StatusBadge } from '../../ui';

export function AppWebhooks({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const path = { params: { path: { appId } } };
  const [page, setPage] = useState(0);
  const settings = useQuery({ queryKey: ['webhook', appId], queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/webhook', path)) });
  const deliveries = useQuery({
    queryKey: ['deliveries', appId, page],
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/webhook/deliveries', { params: { path: { appId }, query: { page, size: 10 } } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => queryClient.invalidateQueries({ predicate: (q) => ['webhook', 'deliveries'].includes(String(q.queryKey[0])) });
  const secret = useMutation({
    mutationFn: (hasSecret: boolean) =>
      unwrap(hasSecret ? api.POST('/api/v1/merchants/apps/{appId}/webhook/rotate', path) : api.POST('/api/v1/merchants/apps/{appId}/webhook/secret', path)),
    onSuccess: refresh,
  });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/merchants/apps/{appId}/webhook/test', { ...path, body: {} })),
    onSettled: refresh,
  });
  const replay = useMutation({
    mutationFn: (deliveryId: string) => unwrap(api.POST('/api/v1/merchants/apps/{appId}/webhook/deliveries/{deliveryId}/replay', { params: { path: { appId, deliveryId } } })),
    onSuccess: refresh,
  });

  return (
    <section aria-labelledby="webhooks" className="card">
      <h2 id="webhooks">{t('hooks.title')}</h2>
      <QueryView query={settings}>
        {(data) => (
          <>
            <dl className="facts">
              <dt>{t('apps.webhookUrl')}</dt>
              <dd>{data.webhookUrl ?? t('hooks.noUrl')}</dd>
              <dt>{t('hooks.secret')}</dt>
              <dd className="ref">{data.webhookSecretPrefix ?? t('common.none')}</dd>
            </dl>
            {secret.data && <SecretOnce label={t('apps.webhookSecret')} value={secret.data.plainTextWebhookSecret} />}
            {secret.error && <ErrorBox error={secret.error} />}
            {test.error && <ErrorBox error={test.error} />}
            {test.data && (
              <p role="status" className="notice">
                {test.data.delivered ? t('hooks.testDelivered', { status: test.data.httpStatus }) : t('hooks.testFailed', { status: test.data.httpStatus ?? '—' })}
              </p>
            )}
            <div className="actions">
              <button type="button" className="secondary" disabled={secret.isPending} onClick={() => secret.mutate(data.webhookSecretPrefix !== null)}>
                {data.webhookSecretPrefix ? t('hooks.rotateSecret') : t('hooks.createSecret')}
              </button>
              <button type="button" className="secondary" disabled={test.isPending || !data.webhookUrl} onClick={() => test.mutate()}>
                {t('hooks.test')}
              </button>
            </div>
          </>
        )}
      </QueryView>
      <h3>{t('hooks.deliveries')}</h3>
      {replay.error && <ErrorBox error={replay.error} />}
      <PagedList query={deliveries} page={page} onPage={setPage} empty={t('hooks.noDelivery')}>
        {(delivery) => (
          <li key={delivery.id} className="row">
            <span className="row-main">
              <span className="ref">{delivery.eventName}</span>
              <span className="muted">
                HTTP {delivery.httpStatus ?? '—'} · {t('hooks.attempts', { count: delivery.attemptCount })} · {formatDateTime(delivery.createdAt, i18n.language)}
              </span>
              {delivery.lastError && <span className="muted">{delivery.lastError}</span>}
            </span>
            <span className="row-side">
              <StatusBadge status={delivery.status} />
              <button type="button" className="secondary" aria-label={`${t('hooks.replay')} ${delivery.eventName} ${delivery.id.slice(0, 8)}`} disabled={replay.isPending} onClick={() => replay.mutate(delivery.id)}>
                {t('hooks.replay')}
              </button>
            </span>
          </li>
        )}
      </PagedList>
    </section>
  );
}
