/** Sign up, then verify the e-mail address with the 6-digit code the API sent. */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useRegister, useResendEmailCode, useVerifyEmail } from '../../hooks/api/auth';
import { ErrorBox, Field, SelectField } from '../../ui';
import { AuthFrame } from './AuthFrame';

const COUNTRIES: [string, string][] = [
  ['CM', 'Cameroun / Cameroon'],
  ['CI', "Côte d'Ivoire"],
  ['SN', 'Sénégal / Senegal'],
  ['BJ', 'Bénin / Benin'],
  ['TG', 'Togo'],
  ['BF', 'Burkina Faso'],
  ['ML', 'Mali'],
  ['GA', 'Gabon'],
  ['CG', 'Congo'],
  ['TD', 'Tchad / Chad'],
];

export default function SignUp() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [email, setEmail] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const register = useRegister();
  const verify = useVerifyEmail();
  const resend = useResendEmailCode();
  // The code form's two actions: the last one's refusal is shown.
  const codeError = verify.error ?? resend.error;
  const isCodeBusy = verify.isPending || resend.isPending;

  return (
    <AuthFrame title={t('auth.signUpTitle')}>
      {email === null ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const body = {
              fullName: String(form.get('fullName')),
              email: String(form.get('email')),
              phone: String(form.get('phone')),
              country: String(form.get('country')),
              password: String(form.get('password')),
            };
            register.mutate(body, { onSuccess: () => setEmail(body.email) });
          }}
        >
          <Field label={t('auth.fullName')} name="fullName" autoComplete="name" required maxLength={255} />
          <Field label={t('common.email')} name="email" type="email" autoComplete="email" required />
          <Field label={t('auth.phone')} name="phone" type="tel" autoComplete="tel" required placeholder="+237 6 77 00 00 01" />
          <SelectField label={t('auth.country')} name="country" options={COUNTRIES} defaultValue="CM" />
          <Field label={t('auth.newPassword')} name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
          {register.error && <ErrorBox error={register.error} />}
          <button type="submit" disabled={register.isPending}>
            {t('auth.signUp')}
          </button>
        </form>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            const otp = String(new FormData(event.currentTarget).get('otp'));
            resend.reset();
            verify.mutate({ email, otp }, { onSuccess: () => navigate('/', { state: { notice: t('auth.verified') } }) });
          }}
        >
          <p className="notice" role="status">
            {notice ?? t('auth.codeSent', { email })}
          </p>
          <Field label={t('auth.code')} name="otp" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
          {codeError && <ErrorBox error={codeError} />}
          <button type="submit" disabled={isCodeBusy}>
            {t('auth.verify')}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={isCodeBusy}
            onClick={() => {
              verify.reset();
              resend.mutate({ email }, { onSuccess: () => setNotice(t('auth.resent')) });
            }}
          >
            {t('auth.resend')}
          </button>
        </form>
      )}
      <p>
        {t('auth.haveAccount')} <Link to="/">{t('auth.login')}</Link>
      </p>
    </AuthFrame>
  );
}
