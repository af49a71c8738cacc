/**
 * "Send a transfer" on the pay-outs screen: from one of my applications, in the current
 * environment, to a mobile-money number. The form shows the application's available balance;
 * "review" shows a confirmation step (amount, the fee quoted by the API, total,
 * beneficiary); "confirm" sends it with one idempotency key per reviewed form, so a
 * double click or a retry after a network error sends it once. The result is the transaction,
 * with a link to its detail. Refusals are shown from the API's code.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { formatMoney, parseAmount } from '../../format';
import { useApplications } from '../../hooks/api/applications';
import { useBalances } from '../../hooks/api/balances';
import { useProviders } from '../../hooks/api/providers';
import { useQuoteTransfer, useSendTransfer, type TransferFee } from '../../hooks/api/transfers';
import { ErrorBox, Field, Money, QueryView, SelectField, StatusBadge } from '../../ui';

/** A reviewed transfer, waiting for its confirmation. */
interface Review {
  appId: string;
  amount: number;
  currency: string;
  paymentMethod: string;
  railName: string;
  beneficiaryAccount: string;
  beneficiaryName: string;
  description: string;
  /** Sent as Idempotency-Key: one per reviewed form. */
  idempotencyKey: string;
  /** What the API quoted for this transfer (GET …/transfer/fee): its fee and the total leaving the balance. */
  quote: TransferFee;
}

/** 32 random hex characters (crypto.getRandomValues also works outside secure contexts). */
function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function SendTransfer() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [appId, setAppId] = useState<string | null>(null);
  const [review, setReview] = useState<Review | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const apps = useApplications();
  const rails = useProviders();
  const activeApps = (apps.data ?? []).filter((a) => a.status === 'ACTIVE');
  const app = activeApps.find((a) => a.id === appId) ?? activeApps[0];
  const balance = useBalances({ environment, appId: app?.id }, { enabled: app !== undefined });
  const quote = useQuoteTransfer();
  const send = useSendTransfer({ onSuccess: () => setReview(null) });
  const appRails = (rails.data ?? []).filter((r) => app && r.currency === app.currency && r.environments.includes(environment));
  const available = balance.data?.find((line) => line.currency === app?.currency)?.availableAmount ?? 0;

  return (
    <section aria-labelledby="send-transfer" className="card">
      <h2 id="send-transfer">{t('transfer.title')}</h2>
      <QueryView query={apps}>
        {() =>
          !app ? (
            <p className="muted">{t('transfer.noApp')}</p>
          ) : review ? (
            <div role="group" aria-label={t('transfer.confirmTitle')}>
              <dl className="facts">
                <dt>{t('tx.amount')}</dt>
                <dd>{formatMoney(review.amount, review.currency, i18n.language)}</dd>
                <dt>{t('tx.fee')}</dt>
                <dd>{formatMoney(review.quote.feeAmount, review.currency, i18n.language)}</dd>
                <dt>{t('transfer.total')}</dt>
                <dd>{formatMoney(review.quote.totalAmount, review.currency, i18n.language)}</dd>
                <dt>{t('transfer.beneficiary')}</dt>
                <dd>
                  {review.beneficiaryName} · {review.railName} {review.beneficiaryAccount}
                </dd>
                <dt>{t('tx.application')}</dt>
                <dd>{activeApps.find((a) => a.id === review.appId)?.name}</dd>
              </dl>
              {send.error && <ErrorBox error={send.error} />}
              <div className="actions">
                <button
                  type="button"
                  disabled={send.isPending}
                  onClick={() =>
                    send.mutate({
                      appId: review.appId,
                      idempotencyKey: review.idempotencyKey,
                      body: {
                        amount: review.amount,
                        currency: review.currency,
                        paymentMethod: review.paymentMethod,
                        beneficiaryAccount: review.beneficiaryAccount,
                        beneficiaryName: review.beneficiaryName,
                        ...(review.description ? { description: review.description } : {}),
                        environment,
                      },
                    })
                  }
                >
                  {t('transfer.send')}
                </button>
                <button type="button" className="secondary" disabled={send.isPending} onClick={() => setReview(null)}>
                  {t('common.cancel')}
                </button>
              </div>
            </div>
          ) : (
            <form
              aria-label={t('transfer.title')}
              onSubmit={(event) => {
                event.preventDefault();
                const form = new FormData(event.currentTarget);
                const amount = parseAmount(String(form.get('amount') ?? ''), app.currency, i18n.language);
                if (amount === null || amount <= 0) return setAmountBad(true);
                setAmountBad(false);
                const rail = appRails.find((r) => r.code === String(form.get('paymentMethod')));
                if (!rail) return;
                send.reset();
                const reviewed = {
                  appId: app.id,
                  amount,
                  currency: app.currency,
                  paymentMethod: rail.code,
                  railName: rail.name,
                  beneficiaryAccount: String(form.get('beneficiaryAccount') ?? '').trim(),
                  beneficiaryName: String(form.get('beneficiaryName') ?? '').trim(),
                  description: String(form.get('description') ?? '').trim(),
                  idempotencyKey: newIdempotencyKey(),
                };
                quote.mutate(
                  { appId: app.id, amount, currency: app.currency, paymentMethod: rail.code, environment },
                  { onSuccess: (fee) => setReview({ ...reviewed, quote: fee }) },
                );
              }}
            >
              {activeApps.length > 1 && (
                <SelectField
                  label={t('transfer.fromApp')}
                  name="appId"
                  value={app.id}
                  onChange={(event) => setAppId(event.currentTarget.value)}
                  options={activeApps.map((a): [string, string] => [a.id, `${a.name} (${a.currency})`])}
                />
              )}
              <p>
                {t('transfer.available')} : <strong>{balance.isPending ? '…' : <Money amount={available} currency={app.currency} />}</strong>
              </p>
              <SelectField key={`rails-${app.id}-${appRails.length}`} label={t('tx.rail')} name="paymentMethod" options={appRails.map((r): [string, string] => [r.code, r.name])} />
              <Field label={t('transfer.beneficiaryAccount')} name="beneficiaryAccount" type="tel" required maxLength={100} autoComplete="off" />
              <Field label={t('transfer.beneficiaryName')} name="beneficiaryName" required maxLength={255} autoComplete="off" />
              <Field label={t('transfer.amount', { currency: app.currency })} name="amount" inputMode="decimal" required aria-invalid={isAmountBad} />
              <Field label={t('transfer.description')} name="description" maxLength={255} />
              {isAmountBad && (
                <p className="error" role="alert">
                  {t('errors.VALIDATION_ERROR')}
                </p>
              )}
              {quote.error && <ErrorBox error={quote.error} />}
              {send.data && (
                <p role="status" className="notice">
                  {t('transfer.sent', { reference: send.data.reference })} <StatusBadge status={send.data.status} />{' '}
                  <Link to={`/transactions/${send.data.reference}`}>{t('transfer.seeIt')}</Link>
                </p>
              )}
              <button type="submit" disabled={appRails.length === 0 || quote.isPending}>
                {t('transfer.review')}
              </button>
            </form>
          )
        }
      </QueryView>
    </section>
  );
}
