/** Log in with e-mail and password. */
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../api/client';
import { useSession } from '../../auth/session';
import { ErrorBox, Field } from '../../ui';
import { AuthFrame } from './AuthFrame';

export default function Login() {
  const { t } = useTranslation();
  const { logIn } = useSession();
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  const [error, setError] = useState<unknown>(null);
  const [isBusy, setBusy] = useState(false);
  // Shown once the server says the account has a second factor.
  const [asksCode, setAsksCode] = useState(false);
  return (
    <AuthFrame title={t('auth.loginTitle')}>
      {notice && <p className="notice" role="status">{notice}</p>}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          setBusy(true);
          setError(null);
          try {
            await logIn(String(form.get('email')), String(form.get('password')), asksCode ? String(form.get('otp')).trim() : undefined);
          } catch (failure) {
            if (failure instanceof ApiFailure && failure.code === 'SECOND_FACTOR_REQUIRED') {
              setAsksCode(true);
              setError(null);
            } else setError(failure);
            setBusy(false);
          }
        }}
      >
        <Field label={t('common.email')} name="email" type="email" autoComplete="username" required />
        <Field label={t('common.password')} name="password" type="password" autoComplete="current-password" required />
        {asksCode && <Field label={t('twoFactor.codeOrRecovery')} name="otp" autoComplete="one-time-code" required maxLength={20} autoFocus />}
        {error !== null && <ErrorBox error={error} />}
        <button type="submit" disabled={isBusy}>
          {t('auth.login')}
        </button>
      </form>
      <p>
        <Link to="/forgot">{t('auth.forgot')}</Link>
      </p>
      <p>
        {t('auth.noAccount')} <Link to="/signup">{t('auth.signUp')}</Link>
      </p>
    </AuthFrame>
  );
}
