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
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../auth/session';
import { formatMoney, parseAmount } from '../../format';
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
  /** The fee the API quoted for this transfer (GET …/transfer/fee). */
  fee: number;
  /** Sent as Idempotency-Key: one per reviewed form. */
  idempotencyKey: string;
}

/** 32 random hex characters (crypto.getRandomValues also works outside secure contexts). */
function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function SendTransfer() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const queryClient = useQueryClient();
  const [appId, setAppId] = useState<string | null>(null);
  const [review, setReview] = useState<Review | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const apps = useQuery({ queryKey: ['apps'], queryFn: () => unwrap(api.GET('/api/v1/merchants/apps')) });
  const rails = useQuery({ queryKey: ['providers'], queryFn: () => unwrap(api.GET('/api/v1/merchants/providers')), staleTime: 300_000 });
  const activeApps = (apps.data ?? []).filter((a) => a.status === 'ACTIVE');
  const app = activeApps.find((a) => a.id === appId) ?? activeApps[0];
  const balance = useQuery({
    queryKey: ['balance', environment, app?.id],
    queryFn: () => unwrap(api.GET('/api/v1/merchants/balance', { params: { query: { environment, appId: app!.id } } })),
    enabled: app !== undefined,
  });
  const quote = useMutation({
    mutationFn: async (r: Omit<Review, 'fee'>) => {
      const fee = await unwrap(
        api.GET('/api/v1/merchants/apps/{appId}/transfer/fee', {
          params: { path: { appId: r.appId }, query: { amount: r.amount, currency: r.currency, paymentMethod: r.paymentMethod, environment } },
        }),
      );
      return { ...r, fee: fee.feeAmount };
    },
    onSuccess: (reviewed) => setReview(reviewed),
  });
  const send = useMutation({
    mutationFn: (r: Review) =>
      unwrap(
        api.POST('/api/v1/merchants/apps/{appId}/transfer', {
          params: { path: { appId: r.appId } },
          headers: { 'Idempotency-Key': r.idempotencyKey },
          body: {
            amount: r.amount,
            currency: r.currency,
            paymentMethod: r.paymentMethod,
            beneficiaryAccount: r.beneficiaryAccount,
            beneficiaryName: r.beneficiaryName,
            ...(r.description ? { description: r.description } : {}),
            environment,
          },
        }),
      ),
    onSuccess: async () => {
      setReview(null);
      await queryClient.invalidateQueries({ predicate: (q) => ['balance', 'transactions', 'dashboard'].includes(String(q.queryKey[0])) });
    },
  });
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
                <dd>{formatMoney(review.fee, review.currency, i18n.language)}</dd>
                <dt>{t('transfer.total')}</dt>
                <dd>{formatMoney(review.amount + review.fee, review.currency, i18n.language)}</dd>
                <dt>{t('transfer.beneficiary')}</dt>
                <dd>
                  {review.beneficiaryName} · {review.railName} {review.beneficiaryAccount}
                </dd>
                <dt>{t('tx.application')}</dt>
                <dd>{activeApps.find((a) => a.id === review.appId)?.name}</dd>
              </dl>
              {send.error && <ErrorBox error={send.error} />}
              <div className="actions">
                <button type="button" disabled={send.isPending} onClick={() => send.mutate(review)}>
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
                quote.mutate({
                  appId: app.id,
                  amount,
                  currency: app.currency,
                  paymentMethod: rail.code,
                  railName: rail.name,
                  beneficiaryAccount: String(form.get('beneficiaryAccount') ?? '').trim(),
                  beneficiaryName: String(form.get('beneficiaryName') ?? '').trim(),
                  description: String(form.get('description') ?? '').trim(),
                  idempotencyKey: newIdempotencyKey(),
                });
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
