/**
 * An application's money settings: what happens to a payment the operator reports successful
 * after Kolo closed it (late success) — REFUND sends the money back to the payer (the default),
 * KEEP credits it to the merchant like any payment. Each choice is explained beside it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { CardForm, QueryView, SaveWithStatus } from '../../ui';

type LateSuccessPolicy = 'REFUND' | 'KEEP';
const POLICIES: LateSuccessPolicy[] = ['REFUND', 'KEEP'];

/** The settings card of application `appId`. */
export function AppMoneySettings({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['money-settings', appId],
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/money-settings', { params: { path: { appId } } })),
  });
  const save = useMutation({
    mutationFn: (lateSuccessPolicy: LateSuccessPolicy) => unwrap(api.PUT('/api/v1/merchants/apps/{appId}/money-settings', { params: { path: { appId } }, body: { lateSuccessPolicy } })),
    onSuccess: (data) => queryClient.setQueryData(['money-settings', appId], data),
  });
  return (
    <CardForm label={t('apps.moneySettings')} onSubmit={(form) => save.mutate(form.get('lateSuccessPolicy') as LateSuccessPolicy)}>
      <QueryView query={settings}>
        {(data) => (
          <fieldset className="choices">
            <legend>{t('apps.lateSuccess')}</legend>
            <p className="muted">{t('apps.lateSuccessHelp')}</p>
            {POLICIES.map((policy) => (
              <label key={policy} className="choice">
                <input type="radio" name="lateSuccessPolicy" value={policy} defaultChecked={data.lateSuccessPolicy === policy} aria-describedby={`late-${policy}`} />
                <span>
                  <strong>{t(`apps.late${policy}`)}</strong>
                  <span id={`late-${policy}`} className="muted">
                    {t(`apps.late${policy}Help`)}
                  </span>
                </span>
              </label>
            ))}
          </fieldset>
        )}
      </QueryView>
      <SaveWithStatus mutation={save} doneText={t('common.saved')} />
    </CardForm>
  );
}
