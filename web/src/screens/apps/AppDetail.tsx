/**
 * One application: its settings, its API key (create, rotate, revoke; shown once), its money
 * settings, webhooks, and deleting it after a confirmation step.
 */
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ConfirmButton } from '../../confirm';
import { formatDateTime } from '../../format';
import { useApiKeys, useIssueApiKey, useRevokeApiKey, type IssueApiKeyInput } from '../../hooks/api/api-keys';
import { useApplication, useDeleteApplication, useUpdateApplication } from '../../hooks/api/applications';
import { CardForm, ErrorBox, Field, QueryView, SaveWithStatus, SecretOnce, SelectField } from '../../ui';
import { AppMoneySettings } from './AppMoneySettings';
import { AppWebhooks } from './AppWebhooks';

const nullable = (value: FormDataEntryValue | null) => (typeof value === 'string' && value.trim() ? value.trim() : null);
const SCOPES = ['COLLECT', 'PAYOUT', 'REFUND', 'READ'] as const;
/** The allow-list typed in the form: entries split on commas, spaces or new lines; none: any address. */
const ipList = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : []);

export default function AppDetail() {
  const { t, i18n } = useTranslation();
  const appId = useParams().appId!;
  const navigate = useNavigate();
  const app = useApplication(appId);
  const keys = useApiKeys(appId);
  const update = useUpdateApplication(appId);
  const issue = useIssueApiKey(appId);
  const revoke = useRevokeApiKey(appId);
  const remove = useDeleteApplication(appId, { onSuccess: () => navigate('/apps', { state: { deleted: app.data?.name } }) });

  return (
    <>
      <p>
        <Link to="/apps">← {t('common.back')}</Link>
      </p>
      <QueryView query={app}>
        {(data) => (
          <>
            <h1>{data.name}</h1>
            <CardForm
              label={t('apps.edit')}
              onSubmit={(form) =>
                update.mutate({
                  name: String(form.get('name')).trim(),
                  description: nullable(form.get('description')),
                  webhookUrl: nullable(form.get('webhookUrl')),
                  successUrl: nullable(form.get('successUrl')),
                  cancelUrl: nullable(form.get('cancelUrl')),
                })
              }
            >
              <p className="muted">
                {t('apps.currency')} : {data.currency}
              </p>
              <Field label={t('apps.name')} name="name" required maxLength={100} defaultValue={data.name} />
              <Field label={t('apps.description')} name="description" maxLength={500} defaultValue={data.description ?? ''} />
              <Field label={t('apps.webhookUrl')} name="webhookUrl" type="url" maxLength={500} defaultValue={data.webhookUrl ?? ''} />
              <Field label={t('apps.successUrl')} name="successUrl" type="url" maxLength={500} defaultValue={data.successUrl ?? ''} />
              <Field label={t('apps.cancelUrl')} name="cancelUrl" type="url" maxLength={500} defaultValue={data.cancelUrl ?? ''} />
              <SaveWithStatus mutation={update} doneText={t('common.saved')} />
            </CardForm>
          </>
        )}
      </QueryView>

      <section aria-labelledby="keys" className="card">
        <h2 id="keys">{t('apps.keys')}</h2>
        {issue.data?.plainTextKey && <SecretOnce label={t('apps.plainKey')} value={issue.data.plainTextKey} />}
        <QueryView query={keys}>
          {(list) => {
            const active = list.find((key) => key.active);
            return (
              <>
                {list.length === 0 ? (
                  <p className="muted">{t('apps.noKey')}</p>
                ) : (
                  <ul className="rows">
                    {list.map((key) => (
                      <li key={key.id} className="row">
                        <span className="row-main">
                          <span className="ref">
                            {key.keyPrefix}… · {key.name}
                          </span>
                          <span className="muted">
                            {key.environment} · {t('apps.lastUsed')} : {key.lastUsedAt ? formatDateTime(key.lastUsedAt, i18n.language) : t('apps.never')}
                          </span>
                          <span className="muted">
                            {key.scopes.join(', ')} · {key.allowedIps ? key.allowedIps.join(', ') : t('apps.anyAddress')}
                          </span>
                        </span>
                        <span className={`badge ${key.active ? 'badge-success' : 'badge-failed'}`}>{key.active ? t('apps.active') : t('apps.revoked')}</span>
                      </li>
                    ))}
                  </ul>
                )}
                <form
                  aria-label={active ? t('apps.rotate') : t('apps.createKey')}
                  onSubmit={(event) => {
                    event.preventDefault();
                    const form = new FormData(event.currentTarget);
                    issue.mutate({
                      rotate: Boolean(active),
                      name: String(form.get('keyName')).trim(),
                      environment: form.get('environment') as IssueApiKeyInput['environment'],
                      scopes: SCOPES.filter((scope) => form.get(`scope-${scope}`) === 'on'),
                      allowedIps: ipList(form.get('allowedIps')),
                    });
                  }}
                >
                  <Field label={t('apps.keyName')} name="keyName" required minLength={2} maxLength={100} defaultValue={active?.name ?? ''} />
                  <SelectField
                    label={t('apps.keyEnv')}
                    name="environment"
                    defaultValue={active?.environment ?? 'TEST'}
                    options={[
                      ['TEST', 'TEST'],
                      ['LIVE', 'LIVE'],
                    ]}
                  />
                  <fieldset>
                    <legend>{t('apps.keyScopes')}</legend>
                    {SCOPES.map((scope) => (
                      <label key={scope} className="check">
                        <input type="checkbox" name={`scope-${scope}`} defaultChecked={active ? active.scopes.includes(scope) : true} /> {t(`apps.scope_${scope}`)}
                      </label>
                    ))}
                  </fieldset>
                  <Field label={t('apps.allowedIps')} name="allowedIps" maxLength={2000} defaultValue={active?.allowedIps?.join(', ') ?? ''} />
                  {issue.error && <ErrorBox error={issue.error} />}
                  {revoke.error && <ErrorBox error={revoke.error} />}
                  <div className="actions">
                    <button type="submit" disabled={issue.isPending}>
                      {active ? t('apps.rotate') : t('apps.createKey')}
                    </button>
                    {active && (
                      <button
                        type="button"
                        className="danger"
                        disabled={revoke.isPending}
                        onClick={() => {
                          if (window.confirm(t('apps.revokeConfirm'))) revoke.mutate();
                        }}
                      >
                        {t('apps.revoke')}
                      </button>
                    )}
                  </div>
                </form>
              </>
            );
          }}
        </QueryView>
      </section>
      {app.data && <AppMoneySettings appId={appId} currency={app.data.currency} />}
      <AppWebhooks appId={appId} />
      <section aria-labelledby="delete-app" className="card">
        <h2 id="delete-app">{t('apps.delete')}</h2>
        <p className="muted">{t('apps.deleteHelp')}</p>
        {remove.error ? <ErrorBox error={remove.error} /> : null}
        <ConfirmButton label={t('apps.delete')} question={t('apps.deleteConfirm', { name: app.data?.name ?? '' })} isPending={remove.isPending} onConfirm={() => remove.mutate()} />
      </section>
    </>
  );
}
