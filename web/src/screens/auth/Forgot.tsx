/** Forgotten password: e-mail → code → new password. */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useForgotPassword, useResetPassword, useVerifyResetCode } from '../../hooks/api/auth';
import { ErrorBox, Field } from '../../ui';
import { AuthFrame } from './AuthFrame';

/** A form's data, the page not reloaded. */
const formOf = (event: FormEvent<HTMLFormElement>) => {
  event.preventDefault();
  return new FormData(event.currentTarget);
};

export default function Forgot() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState<string | null>(null);
  const [resetToken, setResetToken] = useState<string | null>(null);
  const askCode = useForgotPassword();
  const verify = useVerifyResetCode();
  const reset = useResetPassword();

  return (
    <AuthFrame title={t('auth.forgotTitle')}>
      {email === null && (
        <form
          onSubmit={(event) => {
            const value = String(formOf(event).get('email'));
            askCode.mutate({ email: value }, { onSuccess: () => setEmail(value) });
          }}
        >
          <Field label={t('common.email')} name="email" type="email" autoComplete="username" required />
          {askCode.error && <ErrorBox error={askCode.error} />}
          <button type="submit" disabled={askCode.isPending}>
            {t('auth.sendCode')}
          </button>
        </form>
      )}
      {email !== null && resetToken === null && (
        <form
          onSubmit={(event) => {
            verify.mutate({ email, otp: String(formOf(event).get('otp')) }, { onSuccess: (data) => setResetToken(data.resetToken) });
          }}
        >
          <p className="notice" role="status">{t('auth.resetSent')}</p>
          <Field label={t('auth.code')} name="otp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
          {verify.error && <ErrorBox error={verify.error} />}
          <button type="submit" disabled={verify.isPending}>
            {t('auth.verify')}
          </button>
        </form>
      )}
      {resetToken !== null && (
        <form
          onSubmit={(event) => {
            reset.mutate({ resetToken, newPassword: String(formOf(event).get('password')) }, { onSuccess: () => navigate('/', { state: { notice: t('auth.resetDone') } }) });
          }}
        >
          <Field label={t('auth.newPassword')} name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
          {reset.error && <ErrorBox error={reset.error} />}
          <button type="submit" disabled={reset.isPending}>
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
