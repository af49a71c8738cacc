/**
 * Staff (ADMIN): a rail's limits and fees, edited in place. Amounts are typed in the rail's
 * currency (XAF and XOF have no decimals) and sent in base units; percentages have at most two
 * decimals (whole basis points, as the API requires). The API's update replaces the whole rail:
 * the fields this form does not show are sent back as they are.
 */
import { useTranslation } from 'react-i18next';
import { parseAmount } from '../../format';
import { useUpdateRail, type Rail, type RailBody } from '../../hooks/api/admin-rails';
import { ErrorBox, Field } from '../../ui';
import { baseUnitDigits } from '../../../../src/domain/currency.ts';

/** The form; `onDone` closes it after a save or a cancel. */
export function RailForm({ rail, onDone }: { rail: Rail; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const digits = baseUnitDigits(rail.currency);
  const shown = (amount: number) => String(amount / 10 ** digits);
  const save = useUpdateRail(rail.id, { onSuccess: onDone });
  /** The whole rail, with the limits and fees of the form: the fields it does not show go back as they are. */
  const bodyOf = (edited: Pick<RailBody, 'minAmount' | 'maxAmount' | 'feePercentage' | 'feeFixed' | 'payOutFeePercentage' | 'payOutFeeFixed'>): RailBody => ({
    name: rail.name,
    type: rail.type as RailBody['type'],
    country: rail.country,
    currency: rail.currency,
    operator: rail.operator,
    settlementDelaySeconds: rail.settlementDelaySeconds,
    pendingTimeoutSeconds: rail.pendingTimeoutSeconds,
    active: rail.active,
    ...edited,
  });
  const amountStep = digits === 0 ? 1 : 1 / 10 ** digits;
  return (
    <form
      className="card rail-form"
      aria-label={t('admin.editRail', { name: rail.name })}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const amount = (name: string) => parseAmount(String(form.get(name)), rail.currency, i18n.language) ?? Number.NaN;
        save.mutate(
          bodyOf({
            minAmount: amount('minAmount'),
            maxAmount: amount('maxAmount'),
            feePercentage: Number(form.get('feePercentage')),
            feeFixed: amount('feeFixed'),
            payOutFeePercentage: Number(form.get('payOutFeePercentage')),
            payOutFeeFixed: amount('payOutFeeFixed'),
          }),
        );
      }}
    >
      <h3>{t('admin.editRail', { name: rail.name })}</h3>
      <Field label={t('admin.minAmount', { currency: rail.currency })} name="minAmount" type="number" required min={amountStep} step={amountStep} defaultValue={shown(rail.minAmount)} />
      <Field label={t('admin.maxAmount', { currency: rail.currency })} name="maxAmount" type="number" required min={amountStep} step={amountStep} defaultValue={shown(rail.maxAmount)} />
      <Field label={t('admin.payInPercentage')} name="feePercentage" type="number" required min={0} max={100} step={0.01} defaultValue={rail.feePercentage} />
      <Field label={t('admin.payInFixed', { currency: rail.currency })} name="feeFixed" type="number" required min={0} step={amountStep} defaultValue={shown(rail.feeFixed)} />
      <Field label={t('admin.payOutPercentage')} name="payOutFeePercentage" type="number" required min={0} max={100} step={0.01} defaultValue={rail.payOutFeePercentage} />
      <Field label={t('admin.payOutFixed', { currency: rail.currency })} name="payOutFeeFixed" type="number" required min={0} step={amountStep} defaultValue={shown(rail.payOutFeeFixed)} />
      {save.error ? <ErrorBox error={save.error} /> : null}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {t('common.save')}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
