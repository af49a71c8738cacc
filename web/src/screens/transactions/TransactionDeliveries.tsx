/**
 * The webhook deliveries of one transaction (its application's delivery log filtered by the
 * transaction's reference): event, status, attempts, last HTTP answer and time, each with the
 * log's replay action.
 */
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import { useReplayDelivery, useWebhookDeliveries } from '../../hooks/api/webhooks';
import { ErrorBox, QueryView, StatusBadge } from '../../ui';

/** The deliveries section; `appId` and `reference` are the transaction's. */
export function TransactionDeliveries({ appId, reference }: { appId: string; reference: string }) {
  const { t, i18n } = useTranslation();
  const deliveries = useWebhookDeliveries(appId, { reference, size: 50 });
  const replay = useReplayDelivery(appId);

  return (
    <section aria-labelledby="tx-deliveries">
      <h2 id="tx-deliveries">{t('tx.deliveries')}</h2>
      {replay.error && <ErrorBox error={replay.error} />}
      {replay.data && (
        <p role="status" className="notice">
          {t('tx.replayed', { event: replay.data.eventName })}
        </p>
      )}
      <QueryView query={deliveries}>
        {(page) =>
          page.content.length === 0 ? (
            <p className="muted">{t('tx.noDelivery')}</p>
          ) : (
            <ul className="rows">
              {page.content.map((delivery) => (
                <li key={delivery.id} className="row">
                  <span className="row-main">
                    <span className="ref">{delivery.eventName}</span>
                    <span className="muted">
                      HTTP {delivery.httpStatus ?? '—'} · {t('hooks.attempts', { count: delivery.attemptCount })} ·{' '}
                      <time dateTime={delivery.deliveredAt ?? delivery.createdAt}>{formatDateTime(delivery.deliveredAt ?? delivery.createdAt, i18n.language)}</time>
                    </span>
                    {delivery.lastError && <span className="muted">{delivery.lastError}</span>}
                  </span>
                  <span className="row-side">
                    <StatusBadge status={delivery.status} />
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`${t('hooks.replay')} ${delivery.eventName}`}
                      disabled={replay.isPending}
                      onClick={() => replay.mutate(delivery.id)}
                    >
                      {t('hooks.replay')}
                    </button>
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}
