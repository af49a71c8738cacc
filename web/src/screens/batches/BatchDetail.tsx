/**
 * One batch pay-out: its totals, status and progress (read again while it is being sent), the
 * buttons the API says the signed-in person may use (approve — with the inline step-up when the
 * second factor is not fresh —, reject, cancel, retry the failed items), the results file, and
 * its items with the pay-out each became.
 */
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../confirm';
import { formatDateTime } from '../../format';
import { useBatch, useBatchResults, useDecideBatch, useRetryBatch, type BatchDecision } from '../../hooks/api/batches';
import { needsStepUp, StepUpDialog } from '../../step-up';
import { ErrorBox, Money, QueryView, StatusBadge, saveFile } from '../../ui';

export default function BatchDetail() {
  const { t, i18n } = useTranslation();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const batch = useBatch(id);
  const [stepUpFor, setStepUpFor] = useState<BatchDecision | null>(null);
  const decide = useDecideBatch(id, { onError: (error, decision) => needsStepUp(error) && setStepUpFor(decision) });
  const retry = useRetryBatch(id, { onSuccess: (created) => navigate(`/batches/${created.id}`) });
  const results = useBatchResults(id, { onSuccess: saveFile });

  return (
    <>
      <p>
        <Link to="/batches">{t('common.back')}</Link>
      </p>
      <QueryView query={batch}>
        {(b) => {
          const done = b.progress.succeeded + b.progress.failed;
          const allowed = new Set(b.allowedActions);
          return (
            <>
              <div className="section-head">
                <h1>{t('batch.name', { count: b.itemCount })}</h1>
                <StatusBadge status={b.status} />
              </div>
              <section className="card" aria-label={t('batch.summary')}>
                <dl className="facts">
                  <dt>{t('batch.totalAmount')}</dt>
                  <dd>
                    <Money amount={b.totalAmount} currency={b.currency} />
                  </dd>
                  <dt>{t('batch.feeAmount')}</dt>
                  <dd>
                    <Money amount={b.feeAmount} currency={b.currency} />
                  </dd>
                  <dt>{t('batch.reservedAmount')}</dt>
                  <dd>
                    <Money amount={b.reservedAmount} currency={b.currency} />
                  </dd>
                  <dt>{t('batch.createdAt')}</dt>
                  <dd>{formatDateTime(b.createdAt, i18n.language)}</dd>
                  {b.status === 'AWAITING_APPROVAL' && (
                    <>
                      <dt>{t('batch.expiresAt')}</dt>
                      <dd>{formatDateTime(b.expiresAt, i18n.language)}</dd>
                    </>
                  )}
                  {b.approvedAt && (
                    <>
                      <dt>{t('batch.approvedAt')}</dt>
                      <dd>{formatDateTime(b.approvedAt, i18n.language)}</dd>
                    </>
                  )}
                </dl>
                <label className="field">
                  <span>{t('batch.progress')}</span>
                  <progress max={b.itemCount} value={done} />
                </label>
                <p role="status">{t('batch.progressDetail', { succeeded: b.progress.succeeded, failed: b.progress.failed, pending: b.progress.pending, waiting: b.progress.waiting })}</p>
                {decide.error && !needsStepUp(decide.error) ? <ErrorBox error={decide.error} /> : null}
                {retry.error ? <ErrorBox error={retry.error} /> : null}
                {results.error ? <ErrorBox error={results.error} /> : null}
                <div className="actions">
                  {allowed.has('APPROVE') && (
                    <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('approve')}>
                      {t('batch.approve')}
                    </button>
                  )}
                  {allowed.has('REJECT') && (
                    <ConfirmButton label={t('batch.reject')} question={t('batch.rejectConfirm')} isPending={decide.isPending} onConfirm={() => decide.mutate('reject')} />
                  )}
                  {allowed.has('CANCEL') && (
                    <ConfirmButton label={t('batch.cancel')} question={t('batch.cancelConfirm')} isPending={decide.isPending} onConfirm={() => decide.mutate('cancel')} />
                  )}
                  {allowed.has('RETRY') && (
                    <button type="button" className="secondary" disabled={retry.isPending} onClick={() => retry.mutate()}>
                      {t('batch.retry')}
                    </button>
                  )}
                  <button type="button" className="secondary" disabled={results.isPending} onClick={() => results.mutate()}>
                    {t('batch.results')}
                  </button>
                </div>
              </section>
              {stepUpFor && (
                <StepUpDialog
                  onCancel={() => setStepUpFor(null)}
                  onConfirmed={() => {
                    const decision = stepUpFor;
                    setStepUpFor(null);
                    decide.mutate(decision);
                  }}
                />
              )}
              <section aria-labelledby="batch-items">
                <h2 id="batch-items">{t('batch.items')}</h2>
                <ul className="rows">
                  {b.items.map((item) => (
                    <li key={item.rowNumber} className="row">
                      <span className="row-main">
                        <span className="ref">
                          {t('batch.row', { row: item.rowNumber })} · {item.beneficiaryName}
                        </span>
                        <span className="muted">
                          {item.paymentMethod} · {item.beneficiaryAccount}
                          {item.merchantReference ? ` · ${item.merchantReference}` : ''}
                        </span>
                        {item.reference && (
                          <span className="muted">
                            <Link to={`/transactions/${item.reference}`}>{item.reference}</Link>
                          </span>
                        )}
                        {item.failureReason && <span className="muted">{item.failureReason}</span>}
                      </span>
                      <span className="row-side">
                        <Money amount={item.amount} currency={b.currency} />
                        <StatusBadge status={item.status} />
                      </span>
                    </li>
                  ))}
                </ul>
              </section>
            </>
          );
        }}
      </QueryView>
    </>
  );
}
