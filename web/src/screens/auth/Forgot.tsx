/** Forgotten password: e-mail → code → new password. */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorBox, Field } from '../../ui';
import { AuthFrame } from './AuthFrame';

export default function Forgot() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState<string | null>(null);
  const [resetToken, setResetToken] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [isBusy, setBusy] = useState(false);

  const submit = (action: (form: FormData) => Promise<void>) => (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    action(form)
      .catch((failure: unknown) => setError(failure))
      .finally(() => setBusy(false));
  };

  return (
    <AuthFrame title={t('auth.forgotTitle')}>
      {email === null && (
        <form
          onSubmit={submit(async (form) => {
            const value = String(form.get('email'));
            await unwrap(api.POST('/api/v1/auth/forgot-password', { body: { email: value } }));
            setEmail(value);
          })}
        >
          <Field label={t('common.email')} name="email" type="email" autoComplete="username" required />
          {error !== null && <ErrorBox error={error} />}
          <button type="submit" disabled={isBusy}>
            {t('auth.sendCode')}
          </button>
        </form>
      )}
      {email !== null && resetToken === null && (
        <form
          onSubmit={submit(async (form) => {
            const data = await unwrap(api.POST('/api/v1/auth/verify-reset-password-otp', { body: { email, otp: String(form.get('otp')) } }));
            setResetToken(data.resetToken);
          })}
        >
          <p className="notice" role="status">{t('auth.resetSent')}</p>
          <Field label={t('auth.code')} name="otp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
          {error !== null && <ErrorBox error={error} />}
          <button type="submit" disabled={isBusy}>
            {t('auth.verify')}
          </button>
        </form>
      )}
      {resetToken !== null && (
        <form
          onSubmit={submit(async (form) => {
            await unwrap(api.POST('/api/v1/auth/reset-password', { body: { resetToken, newPassword: String(form.get('password')) } }));
            await navigate('/', { state: { notice: t('auth.resetDone') } });
          })}
        >
          <Field label={t('auth.newPassword')} name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
          {error !== null && <ErrorBox error={error} />}
          <button type="submit" disabled={isBusy}>
            {t('auth.reset')}
          </button>
        </form>
      )}
      <p>
        <Link to="/">{t('auth.backToLogin')}</Link>
      </p>
    </AuthFrame>
  );
}
