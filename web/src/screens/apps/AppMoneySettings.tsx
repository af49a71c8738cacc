/**
 * An application's money settings: what happens to a payment the operator reports successful
 * after Kolo closed it (late success) — REFUND sends the money back to the payer (the default),
 * KEEP credits it to the merchant like any payment —, and the amount (amounts + fees) under which
 * a batch pay-out is approved without a person (0: never). Each choice is explained beside it.
 * The API asks a fresh second factor for this change: the inline step-up asks the code, then
 * saves again.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { amountFieldText, parseAmount } from '../../format';
import { useMoneySettings, useUpdateMoneySettings, type LateSuccessPolicy, type MoneySettingsBody } from '../../hooks/api/applications';
import { needsStepUp, StepUpDialog } from '../../step-up';
import { CardForm, Field, QueryView, SaveWithStatus } from '../../ui';

/** The choices, in this order. */
const POLICIES: LateSuccessPolicy[] = ['REFUND', 'KEEP'];

/** The settings card of application `appId`, whose amounts are in `currency`. */
export function AppMoneySettings({ appId, currency }: { appId: string; currency: string }) {
  const { t, i18n } = useTranslation();
  const settings = useMoneySettings(appId);
  const [retryBody, setRetryBody] = useState<MoneySettingsBody | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const save = useUpdateMoneySettings(appId, { onError: (error, body) => needsStepUp(error) && setRetryBody(body) });
  const shownSave = { ...save, error: needsStepUp(save.error) ? null : save.error };
  return (
    <CardForm
      label={t('apps.moneySettings')}
      onSubmit={(form) => {
        const text = String(form.get('batchAutoApproveBelow') ?? '').trim();
        const amount = text === '' ? 0 : parseAmount(text, currency, i18n.language);
        if (amount === null || amount < 0) return setAmountBad(true);
        setAmountBad(false);
        save.mutate({ lateSuccessPolicy: form.get('lateSuccessPolicy') as LateSuccessPolicy, batchAutoApproveBelow: amount });
      }}
    >
      <QueryView query={settings}>
        {(data) => (
          <>
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
            <Field
              label={t('apps.autoApprove', { currency })}
              name="batchAutoApproveBelow"
              inputMode="decimal"
              defaultValue={data.batchAutoApproveBelow ? amountFieldText(data.batchAutoApproveBelow, currency) : ''}
              aria-invalid={isAmountBad}
              aria-describedby="auto-approve-help"
            />
            <p id="auto-approve-help" className="muted">
              {t('apps.autoApproveHelp')}
            </p>
            {isAmountBad && (
              <p className="error" role="alert">
                {t('errors.VALIDATION_ERROR')}
              </p>
            )}
          </>
        )}
      </QueryView>
      <SaveWithStatus mutation={shownSave} doneText={t('common.saved')} />
      {retryBody && (
        <StepUpDialog
          onCancel={() => setRetryBody(null)}
          onConfirmed={() => {
            const body = retryBody;
            setRetryBody(null);
            save.mutate(body);
          }}
        />
      )}
    </CardForm>
  );
}
