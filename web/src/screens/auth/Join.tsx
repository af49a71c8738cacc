/** Joining a merchant's team from the e-mailed link (`/app/join?token=…`): name and password. */
import type { FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useAcceptInvitation } from '../../hooks/api/team';
import { ErrorBox, Field } from '../../ui';
import { AuthFrame } from './AuthFrame';

export default function Join() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const token = useSearchParams()[0].get('token') ?? '';
  const accept = useAcceptInvitation();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    accept.mutate(
      { token, fullName: String(form.get('fullName')).trim(), password: String(form.get('password')) },
      { onSuccess: () => navigate('/', { state: { notice: t('team.joined') } }) },
    );
  };
  return (
    <AuthFrame title={t('team.joinTitle')}>
      <form onSubmit={submit}>
        <Field label={t('auth.fullName')} name="fullName" autoComplete="name" required maxLength={255} />
        <Field label={t('auth.newPassword')} name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
        {accept.error && <ErrorBox error={accept.error} />}
        <button type="submit" disabled={accept.isPending || !token}>
          {t('team.join')}
        </button>
      </form>
    </AuthFrame>
  );
}
