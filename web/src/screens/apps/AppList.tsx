/**
 * My applications, and the form that creates one (its webhook secret shown once); says which
 * one was just deleted when AppDetail comes back here after deleting it.
 */
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useApplications, useCreateApplication } from '../../hooks/api/applications';
import { CardForm, CreateHead, ErrorBox, Field, QueryView, SaveCancel, SecretOnce, SelectField, StatusBadge } from '../../ui';

/** Currencies a new application may use. */
export const CURRENCIES: [string, string][] = [
  ['XAF', 'XAF (FCFA CEMAC)'],
  ['XOF', 'XOF (FCFA UEMOA)'],
];

/** An optional URL field's value, or undefined when empty. */
export const optional = (value: FormDataEntryValue | null) => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

export default function AppList() {
  const { t } = useTranslation();
  const apps = useApplications();
  const [isCreating, setCreating] = useState(false);
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  const create = useCreateApplication({ onSuccess: () => setCreating(false) });

  return (
    <>
      <CreateHead title={t('apps.title')} createLabel={t('apps.create')} isCreating={isCreating} onCreate={() => setCreating(true)} />
      {deleted && !create.data && (
        <p className="notice" role="status">
          {t('apps.deleted', { name: deleted })}
        </p>
      )}
      {create.data && (
        <div className="notice" role="status">
          <p>
            {t('apps.created')} <Link to={`/apps/${create.data.id}`}>{create.data.name}</Link>
          </p>
          {create.data.plainTextWebhookSecret && <SecretOnce label={t('apps.webhookSecret')} value={create.data.plainTextWebhookSecret} />}
        </div>
      )}
      {isCreating && (
        <CardForm
          label={t('apps.create')}
          onSubmit={(form) =>
            create.mutate({
              name: String(form.get('name')).trim(),
              currency: String(form.get('currency')),
              description: optional(form.get('description')),
              webhookUrl: optional(form.get('webhookUrl')),
              successUrl: optional(form.get('successUrl')),
              cancelUrl: optional(form.get('cancelUrl')),
            })
          }
        >
          <Field label={t('apps.name')} name="name" required maxLength={100} />
          <SelectField label={t('apps.currency')} name="currency" options={CURRENCIES} />
          <Field label={t('apps.description')} name="description" maxLength={500} />
          <Field label={t('apps.webhookUrl')} name="webhookUrl" type="url" maxLength={500} placeholder="https://" />
          <Field label={t('apps.successUrl')} name="successUrl" type="url" maxLength={500} placeholder="https://" />
          <Field label={t('apps.cancelUrl')} name="cancelUrl" type="url" maxLength={500} placeholder="https://" />
          {create.error && <ErrorBox error={create.error} />}
          <SaveCancel isPending={create.isPending} onCancel={() => setCreating(false)} />
        </CardForm>
      )}
      <QueryView query={apps}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">{t('apps.empty')}</p>
          ) : (
            <ul className="rows">
              {list.map((app) => (
                <li key={app.id}>
                  <Link to={`/apps/${app.id}`} className="row">
                    <span className="row-main">
                      <span className="ref">{app.name}</span>
                      <span className="muted">
                        {app.currency} · {t('apps.activeKey')} : {app.activeKeyPrefix ? `${app.activeKeyPrefix}… (${app.activeKeyEnvironment})` : t('common.none')}
                      </span>
                    </span>
                    <span className="row-side">
                      <StatusBadge status={app.status} />
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}
