/**
 * One transaction: its fields, its timeline of events, a refund when the API says it may be
 * refunded (`isRefundable`, up to `refundableAmount`) and, while it is PENDING, "ask the
 * operator now" (the answer replaces the shown transaction); its webhook deliveries with their
 * replay.
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../api/client';
import { formatDateTime, formatMoney, parseAmount } from '../../format';
import { useCancelPayOut, useRefund } from '../../hooks/api/refunds';
import { useCheckTransactionStatus, useTransaction } from '../../hooks/api/transactions';
import { ErrorBox, Field, Money, QueryView, StatusBadge } from '../../ui';
import { TransactionDeliveries } from './TransactionDeliveries';

export default function TransactionDetail() {
  const { t, i18n } = useTranslation();
  const reference = useParams().reference!;
  const detail = useTransaction(reference);
  const [isRefunding, setRefunding] = useState(false);
  const [amountError, setAmountError] = useState(false);
  const refund = useRefund(reference, { onSuccess: () => setRefunding(false) });
  const statusCheck = useCheckTransactionStatus(reference);
  const cancel = useCancelPayOut(reference);

  return (
    <>
      <p>
        <Link to="/transactions">← {t('common.back')}</Link>
      </p>
      <h1>{t('tx.detail')}</h1>
      <QueryView query={detail}>
        {(tx) => {
          // What may be refunded, and how much, is the API's to say.
          const { isRefundable, refundableAmount } = tx;
          return (
            <>
              <section className="card">
                <p className="big">
                  <Money amount={tx.amount} currency={tx.currency} /> <StatusBadge status={tx.status} />
                  {tx.isInReconciliation && <span className="badge">{t('tx.inReconciliation')}</span>}
                  {tx.queuedForFloat && <span className="badge badge-queued">{t('tx.queued')}</span>}
                </p>
                {tx.queuedForFloat && <p className="muted">{t('tx.queuedHint')}</p>}
                <dl className="facts">
                  <dt>{t('tx.reference')}</dt>
                  <dd className="ref">{tx.reference}</dd>
                  <dt>{t('tx.merchantReference')}</dt>
                  <dd>{tx.merchantReference ?? '—'}</dd>
                  <dt>{t('tx.type')}</dt>
                  <dd>
                    {tx.direction === 'PAY_IN' ? t('tx.payIn') : t('tx.payOut')} ({tx.type})
                  </dd>
                  <dt>{t('tx.application')}</dt>
                  <dd>{tx.appName}</dd>
                  <dt>{t('tx.provider')}</dt>
                  <dd>{tx.provider ?? '—'}</dd>
                  <dt>{t('tx.payer')}</dt>
                  <dd>{tx.payerAccount ?? '—'}</dd>
                  <dt>{t('tx.fee')}</dt>
                  <dd>{tx.feeAmount === null ? '—' : formatMoney(tx.feeAmount, tx.currency, i18n.language)}</dd>
                  <dt>{t('tx.net')}</dt>
                  <dd>{tx.netAmount === null ? '—' : formatMoney(tx.netAmount, tx.currency, i18n.language)}</dd>
                  <dt>{t('tx.refunded')}</dt>
                  <dd>{formatMoney(tx.refundedAmount, tx.currency, i18n.language)}</dd>
                  <dt>{t('tx.date')}</dt>
                  <dd>{formatDateTime(tx.createdAt, i18n.language)}</dd>
                  {tx.failureCode && (
                    <>
                      <dt>{t('tx.failure')}</dt>
                      <dd>{tx.failureCode}</dd>
                    </>
                  )}
                </dl>
              </section>

              {statusCheck.data && (
                <p className="notice" role="status">
                  {t('tx.checkDone', { status: t(`status.${statusCheck.data.status}`) })}
                </p>
              )}
              {statusCheck.error && <ErrorBox error={statusCheck.error} />}
              {cancel.error && <ErrorBox error={cancel.error} />}
              {tx.queuedForFloat && (
                <button type="button" className="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
                  {t('tx.cancelPayOut')}
                </button>
              )}
              {tx.status === 'PENDING' && (
                <div className="card">
                  <p className="muted">{t('tx.checkHint')}</p>
                  <button type="button" disabled={statusCheck.isPending} onClick={() => statusCheck.mutate()}>
                    {t('tx.checkNow')}
                  </button>
                </div>
              )}
              {refund.data && (
                <p className="notice" role="status">
                  {t('tx.refundDone', { reference: refund.data.reference })}
                </p>
              )}
              {isRefundable && !isRefunding && (
                <button type="button" onClick={() => setRefunding(true)}>
                  {t('tx.refund')}
                </button>
              )}
              {isRefundable && isRefunding && (
                <form
                  className="card"
                  aria-label={t('tx.refundTitle')}
                  onSubmit={(event) => {
                    event.preventDefault();
                    const form = new FormData(event.currentTarget);
                    const text = String(form.get('amount') ?? '').trim();
                    const amount = text ? parseAmount(text, tx.currency, i18n.language) : undefined;
                    if (amount === null) return setAmountError(true);
                    setAmountError(false);
                    const reason = String(form.get('reason') ?? '').trim();
                    refund.mutate({ ...(amount !== undefined ? { amount } : {}), ...(reason ? { reason } : {}) });
                  }}
                >
                  <h2>{t('tx.refundTitle')}</h2>
                  <Field label={t('tx.refundAmount', { left: formatMoney(refundableAmount, tx.currency, i18n.language) })} name="amount" inputMode="decimal" aria-invalid={amountError} />
                  <Field label={t('tx.refundReason')} name="reason" maxLength={255} />
                  {amountError && <ErrorBox error={new ApiFailure(400, 'VALIDATION_ERROR', null)} />}
                  {refund.error && <ErrorBox error={refund.error} />}
                  <div className="actions">
                    <button type="submit" disabled={refund.isPending}>
                      {t('common.confirm')}
                    </button>
                    <button type="button" className="secondary" onClick={() => setRefunding(false)}>
                      {t('common.cancel')}
                    </button>
                  </div>
                </form>
              )}

              <section aria-labelledby="timeline">
                <h2 id="timeline">{t('tx.timeline')}</h2>
                <ol className="timeline">
                  {tx.events.map((event) => (
                    <li key={event.id}>
                      <StatusBadge status={event.toStatus} /> <span className="muted">{event.cause}</span>
                      {event.failureCode ? <span className="muted"> · {event.failureCode}</span> : null}
                      <br />
                      <time dateTime={event.createdAt}>{formatDateTime(event.createdAt, i18n.language)}</time>
                    </li>
                  ))}
                </ol>
              </section>
              <TransactionDeliveries appId={tx.applicationId} reference={tx.reference} />
            </>
          );
        }}
      </QueryView>
    </>
  );
}
