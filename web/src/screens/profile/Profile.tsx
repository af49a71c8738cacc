/** My profile (name, phone) and my password. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { ErrorBox, Field, QueryView } from '../../ui';

export default function Profile() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const me = useQuery({ queryKey: ['me'], queryFn: () => unwrap(api.GET('/api/v1/merchants/me')) });
  const update = useMutation({
    mutationFn: (body: { fullName: string; phone: string | null }) => unwrap(api.PATCH('/api/v1/merchants/me', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
  const password = useMutation({
    mutationFn: (body: { currentPassword: string; newPassword: string }) => unwrap(api.PUT('/api/v1/merchants/me/password', { body })),
  });
  return (
    <>
      <h1>{t('profile.title')}</h1>
      <QueryView query={me}>
        {(data) => (
          <form
            className="card"
            aria-label={t('profile.details')}
            onSubmit={(event) => {
              event.preventDefault();
              const form = new FormData(event.currentTarget);
              const phone = String(form.get('phone')).trim();
              update.mutate({ fullName: String(form.get('fullName')).trim(), phone: phone || null });
            }}
          >
            <h2>{t('profile.details')}</h2>
            <p className="muted">
              {data.email} · {t('profile.role')} : {data.role}
            </p>
            <Field label={t('auth.fullName')} name="fullName" required maxLength={255} defaultValue={data.fullName} />
            <Field label={t('auth.phone')} name="phone" type="tel" defaultValue={data.phone ?? ''} />
            {update.error && <ErrorBox error={update.error} />}
            {update.isSuccess && <p role="status" className="notice">{t('common.saved')}</p>}
            <button type="submit" disabled={update.isPending}>
              {t('common.save')}
            </button>
          </form>
        )}
      </QueryView>
      <form
        className="card"
        aria-label={t('profile.passwordTitle')}
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          password.mutate({ currentPassword: String(form.get('currentPassword')), newPassword: String(form.get('newPassword')) });
        }}
      >
        <h2>{t('profile.passwordTitle')}</h2>
        <Field label={t('profile.current')} name="currentPassword" type="password" autoComplete="current-password" required />
        <Field label={t('auth.newPassword')} name="newPassword" type="password" autoComplete="new-password" required minLength={8} maxLength={128} />
        {password.error && <ErrorBox error={password.error} />}
        {password.isSuccess && <p role="status" className="notice">{t('profile.changed')}</p>}
        <button type="submit" disabled={password.isPending}>
          {t('common.save')}
        </button>
      </form>
    </>
  );
}
