/**
 * Fund collections of the current environment: create one (application, title, fixed or free
 * amount), share its link and QR code, close or reopen it, and see its payments (the
 * transactions list filtered to collection payments of its application).
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { formatDateTime, parseAmount } from '../../format';
import { useApplications } from '../../hooks/api/applications';
import { useCollections, useCreateCollection, useSetCollectionOpen } from '../../hooks/api/collections';
import { CardForm, CreateHead, ErrorBox, Field, Money, QueryView, SaveCancel, SelectField, StatusBadge } from '../../ui';
import { QrCode } from './QrCode';

export default function Collections() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [isCreating, setCreating] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const apps = useApplications();
  const list = useCollections({ page: 0, size: 100, environment });
  const create = useCreateCollection({
    onSuccess: (created) => {
      setCreating(false);
      setShown(created.id);
    },
  });
  const setOpen = useSetCollectionOpen();

  return (
    <>
      <CreateHead title={t('collect.title')} createLabel={t('collect.create')} isCreating={isCreating} onCreate={() => setCreating(true)} />
      {isCreating && (
        <CardForm
          label={t('collect.create')}
          onSubmit={(form) => {
            const applicationId = String(form.get('applicationId'));
            const currency = apps.data?.find((app) => app.id === applicationId)?.currency ?? 'XAF';
            const text = String(form.get('amount') ?? '').trim();
            const amount = text ? parseAmount(text, currency, i18n.language) : undefined;
            if (amount === null) return setAmountBad(true);
            setAmountBad(false);
            const description = String(form.get('description') ?? '').trim();
            create.mutate({
              applicationId,
              environment,
              title: String(form.get('title')).trim(),
              isAmountFixed: form.get('fixed') === 'on',
              ...(description ? { description } : {}),
              ...(amount !== undefined ? { amount } : {}),
            });
          }}
        >
          <SelectField label={t('tx.application')} name="applicationId" options={(apps.data ?? []).map((app): [string, string] => [app.id, `${app.name} (${app.currency})`])} required />
          <Field label={t('collect.titleField')} name="title" required maxLength={255} />
          <Field label={t('apps.description')} name="description" maxLength={2000} />
          <Field label={t('collect.amount')} name="amount" inputMode="decimal" aria-invalid={isAmountBad} />
          <label className="check">
            <input type="checkbox" name="fixed" /> {t('collect.fixed')}
          </label>
          {isAmountBad && <p className="error" role="alert">{t('errors.VALIDATION_ERROR')}</p>}
          {create.error && <ErrorBox error={create.error} />}
          <SaveCancel isPending={create.isPending} onCancel={() => setCreating(false)} />
        </CardForm>
      )}
      {setOpen.error && <ErrorBox error={setOpen.error} />}
      <QueryView query={list}>
        {(collections) =>
          collections.length === 0 ? (
            <p className="muted">{t('collect.empty')}</p>
          ) : (
            <ul className="rows">
              {collections.map((c) => (
                <li key={c.id} className="collection">
                  <div className="row">
                    <span className="row-main">
                      <span className="ref">{c.title}</span>
                      <span className="muted">
                        {c.applicationName} · {c.amount !== null ? <Money amount={c.amount} currency={c.currency} /> : t('collect.free')}
                        {c.amountFixed ? ` (${t('collect.fixedShort')})` : ''}
                      </span>
                      <span className="muted">{c.expiresAt ? t('collect.until', { date: formatDateTime(c.expiresAt, i18n.language) }) : t('collect.noEnd')}</span>
                      <a href={c.collectUrl} className="link-url">
                        {c.collectUrl}
                      </a>
                    </span>
                    <span className="row-side">
                      <StatusBadge status={c.status} />
                    </span>
                  </div>
                  <div className="actions row-actions">
                    <button type="button" className="secondary" aria-expanded={shown === c.id} onClick={() => setShown(shown === c.id ? null : c.id)}>
                      {t('collect.share')}
                    </button>
                    {c.status === 'ACTIVE' && (
                      <button type="button" className="secondary" disabled={setOpen.isPending} onClick={() => setOpen.mutate({ id: c.id, isOpen: false })}>
                        {t('collect.close')}
                      </button>
                    )}
                    {c.status !== 'ACTIVE' && (
                      <button type="button" className="secondary" disabled={setOpen.isPending} onClick={() => setOpen.mutate({ id: c.id, isOpen: true })}>
                        {t('collect.reopen')}
                      </button>
                    )}
                    <Link to={`/transactions?type=FUND_COLLECTION&appId=${c.applicationId}`}>{t('collect.payments')}</Link>
                  </div>
                  {shown === c.id && (
                    <div className="share">
                      <QrCode text={c.collectUrl} label={t('collect.qr', { title: c.title })} />
                      <button type="button" onClick={() => void navigator.clipboard?.writeText(c.collectUrl)}>
                        {t('collect.copyLink')}
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}
