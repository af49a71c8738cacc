/**
 * My second factor in the profile: enrolment (QR code of the otpauth:// URI, the secret to type,
 * a first code, then the recovery codes shown once) and, once enabled, confirming it before a
 * sensitive action (transfer, withdrawal account, API key, webhook URL, batch approval).
 */
import { useTranslation } from 'react-i18next';
import { useConfirmTwoFactor, useStartTwoFactor, useTwoFactor, useVerifyTwoFactor } from '../../hooks/api/two-factor';
import { CardForm, Field, QueryView, SaveWithStatus } from '../../ui';
import { QrCode } from '../collections/QrCode';

export function TwoFactor() {
  const { t } = useTranslation();
  const state = useTwoFactor();
  const start = useStartTwoFactor();
  const confirm = useConfirmTwoFactor();
  const verify = useVerifyTwoFactor();
  return (
    <section aria-labelledby="two-factor" className="card">
      <h2 id="two-factor">{t('twoFactor.title')}</h2>
      <QueryView query={state}>
        {(data) =>
          data.enabled ? (
            <>
              <p className="muted">{t('twoFactor.enabled')}</p>
              {confirm.data && (
                <div role="status">
                  <p>{t('twoFactor.recoveryHelp')}</p>
                  <pre className="secret">{confirm.data.recoveryCodes.join('\n')}</pre>
                </div>
              )}
              <CardForm label={t('twoFactor.verify')} onSubmit={(form) => verify.mutate({ code: String(form.get('code')).trim() })}>
                <p className="muted">{t('twoFactor.verifyHelp')}</p>
                <Field label={t('twoFactor.code')} name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
                <SaveWithStatus mutation={verify} doneText={t('twoFactor.verified')} />
              </CardForm>
            </>
          ) : (
            <>
              <p className="muted">{data.required ? t('twoFactor.required') : t('twoFactor.optional')}</p>
              {!start.data ? (
                <button type="button" disabled={start.isPending} onClick={() => start.mutate()}>
                  {t('twoFactor.start')}
                </button>
              ) : (
                <CardForm label={t('twoFactor.confirm')} onSubmit={(form) => confirm.mutate(String(form.get('code')).trim())}>
                  <QrCode text={start.data.otpauthUri} label={t('twoFactor.qr')} />
                  <p className="muted">
                    {t('twoFactor.secret')} : <code>{start.data.secret}</code>
                  </p>
                  <Field label={t('twoFactor.code')} name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
                  <SaveWithStatus mutation={confirm} doneText={t('twoFactor.enabled')} />
                </CardForm>
              )}
            </>
          )
        }
      </QueryView>
    </section>
  );
}
