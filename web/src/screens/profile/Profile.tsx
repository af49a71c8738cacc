/** My profile (name, phone) and my password. */
import { useTranslation } from 'react-i18next';
import { useChangePassword, useProfile, useUpdateProfile } from '../../hooks/api/profile';
import { CardForm, Field, QueryView, SaveWithStatus } from '../../ui';
import { TwoFactor } from './TwoFactor';

export default function Profile() {
  const { t } = useTranslation();
  const me = useProfile();
  const update = useUpdateProfile();
  const password = useChangePassword();
  return (
    <>
      <h1>{t('profile.title')}</h1>
      <QueryView query={me}>
        {(data) => (
          <CardForm
            label={t('profile.details')}
            onSubmit={(form) => {
              const phone = String(form.get('phone')).trim();
              update.mutate({ fullName: String(form.get('fullName')).trim(), phone: phone || null });
            }}
          >
            <p className="muted">
              {data.email} · {t('profile.role')} : {data.role}
            </p>
            <Field label={t('auth.fullName')} name="fullName" required maxLength={255} defaultValue={data.fullName} />
            <Field label={t('auth.phone')} name="phone" type="tel" defaultValue={data.phone ?? ''} />
            <SaveWithStatus mutation={update} doneText={t('common.saved')} />
          </CardForm>
        )}
      </QueryView>
      <CardForm
        label={t('profile.passwordTitle')}
        onSubmit={(form) => password.mutate({ currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) })}
      >
        <Field label={t('profile.current')} name="currentPassword" type="password" autoComplete="current-password" required />
        <Field label={t('auth.newPassword')} name="newPassword" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
        <SaveWithStatus mutation={password} doneText={t('profile.changed')} />
      </CardForm>
      <TwoFactor />
    </>
  );
}
