/**
 * An application's money settings: what happens to a payment the operator reports successful
 * after Kolo closed it (late success) — REFUND sends the money back to the payer (the default),
 * KEEP credits it to the merchant like any payment. Each choice is explained beside it.
 */
import { useTranslation } from 'react-i18next';
import { useMoneySettings, useUpdateMoneySettings, type LateSuccessPolicy } from '../../hooks/api/applications';
import { CardForm, QueryView, SaveWithStatus } from '../../ui';

/** The choices, in this order. */
const POLICIES: LateSuccessPolicy[] = ['REFUND', 'KEEP'];

/** The settings card of application `appId`. */
export function AppMoneySettings({ appId }: { appId: string }) {
  const { t } = useTranslation();
  const settings = useMoneySettings(appId);
  const save = useUpdateMoneySettings(appId);
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
