/** The automatic withdrawal schedule: manual, instant, above a threshold, or periodic. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { parseAmount } from '../../format';
import { useUpdateWithdrawalConfig, useWithdrawalConfig, type WithdrawalAccount, type WithdrawalConfigBody } from '../../hooks/api/withdrawals';
import { ErrorBox, Field, QueryView, SelectField } from '../../ui';

type Mode = WithdrawalConfigBody['mode'];
type Period = NonNullable<WithdrawalConfigBody['period']>;
/** The modes and periods offered, in this order. */
const MODES: Mode[] = ['MANUAL', 'INSTANT', 'THRESHOLD', 'PERIODIC'];
const PERIODS: Period[] = ['DAILY', 'WEEKLY', 'MONTHLY'];

export function WithdrawalSchedule({ accounts }: { accounts: WithdrawalAccount[] }) {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const config = useWithdrawalConfig();
  const [mode, setMode] = useState<Mode | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const save = useUpdateWithdrawalConfig();
  return (
    <section aria-labelledby="schedule" className="card">
      <h2 id="schedule">{t('payout.schedule')}</h2>
      <QueryView query={config}>
        {(current) => {
          const shown = mode ?? current?.mode ?? 'MANUAL';
          const currency = current?.currency ?? 'XAF';
          return (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                const form = new FormData(event.currentTarget);
                const text = String(form.get('threshold') ?? '').trim();
                const thresholdAmount = shown === 'THRESHOLD' ? parseAmount(text, currency, i18n.language) : undefined;
                if (thresholdAmount === null) return setAmountBad(true);
                setAmountBad(false);
                save.mutate({
                  mode: shown,
                  currency,
                  environment,
                  ...(shown !== 'MANUAL' ? { accountId: String(form.get('accountId')) } : {}),
                  ...(thresholdAmount !== undefined ? { thresholdAmount } : {}),
                  ...(shown === 'PERIODIC' ? { period: form.get('period') as Period } : {}),
                });
              }}
            >
              <SelectField label={t('payout.mode')} name="mode" value={shown} onChange={(event) => setMode(event.target.value as Mode)} options={MODES.map((m): [string, string] => [m, t(`payout.modes.${m}`)])} />
              {shown !== 'MANUAL' && (
                <SelectField label={t('payout.account')} name="accountId" defaultValue={current?.account?.id} options={accounts.map((a): [string, string] => [a.id, `${a.accountName} · ${a.providerCode} ${a.accountNumber}`])} />
              )}
              {shown === 'THRESHOLD' && <Field label={t('payout.threshold', { currency })} name="threshold" inputMode="decimal" required defaultValue={current?.thresholdAmount ?? ''} aria-invalid={isAmountBad} />}
              {shown === 'PERIODIC' && <SelectField label={t('payout.period')} name="period" defaultValue={current?.period ?? 'WEEKLY'} options={PERIODS.map((p): [string, string] => [p, t(`payout.periods.${p}`)])} />}
              {isAmountBad && <p className="error" role="alert">{t('errors.VALIDATION_ERROR')}</p>}
              {save.error && <ErrorBox error={save.error} />}
              {save.isSuccess && <p role="status" className="notice">{t('common.saved')}</p>}
              <button type="submit" disabled={save.isPending}>
                {t('common.save')}
              </button>
            </form>
          );
        }}
      </QueryView>
    </section>
  );
}
