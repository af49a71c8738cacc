/**
 * An application's webhooks: the signing secret (created or rotated, shown once), a test
 * event, and the delivery log with replay. The URL itself is edited with the settings.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import { useIssueWebhookSecret, useReplayDelivery, useTestWebhook, useWebhookDeliveries, useWebhookSettings } from '../../hooks/api/webhooks';
import { ErrorBox, PagedList, QueryView, SecretOnce, StatusBadge } from '../../ui';

export function AppWebhooks({ appId }: { appId: string }) {
  const { t, i18n } = useTranslation();
  const [page, setPage] = useState(0);
  const settings = useWebhookSettings(appId);
  const deliveries = useWebhookDeliveries(appId, { page, size: 10 });
  const secret = useIssueWebhookSecret(appId);
  const test = useTestWebhook(appId);
  const replay = useReplayDelivery(appId);

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
              <button type="button" className="secondary" disabled={secret.isPending} onClick={() => secret.mutate({ hasSecret: data.webhookSecretPrefix !== null })}>
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
