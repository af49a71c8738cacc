/**
 * Staff (ADMIN): a rail's limits and fees, edited in place. Amounts are typed in the rail's
 * currency (XAF and XOF have no decimals) and sent in base units; percentages have at most two
 * decimals (whole basis points, as the API requires). The API's update replaces the whole rail:
 * the fields this form does not show are sent back as they are.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { parseAmount } from '../../format';
import { ErrorBox, Field } from '../../ui';
import { baseUnitDigits } from '../../../../src/domain/currency.ts';

/** A rail as the API gives it (amounts in base units). */
export interface RailFigures {
  id: string;
  name: string;
  type: string;
  country: string;
  currency: string;
  operator: string;
  settlementDelaySeconds: number;
  pendingTimeoutSeconds: number;
  active: boolean;
  minAmount: number;
  maxAmount: number;
  feePercentage: number;
  feeFixed: number;
  payOutFeePercentage: number;
  payOutFeeFixed: number;
}

type RailType = 'MOBILE_MONEY' | 'BANK_TRANSFER' | 'CARD' | 'CRYPTO' | 'WALLET';

/** The form; `onDone` closes it after a save or a cancel. */
export function RailForm({ rail, onDone }: { rail: RailFigures; onDone: () => void }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const digits = baseUnitDigits(rail.currency);
  const shown = (amount: number) => String(amount / 10 ** digits);
  const save = useMutation({
    mutationFn: (body: { minAmount: number; maxAmount: number; feePercentage: number; feeFixed: number; payOutFeePercentage: number; payOutFeeFixed: number }) =>
      unwrap(
        api.PUT('/api/v1/admin/providers/{id}', {
          params: { path: { id: rail.id } },
          body: {
            name: rail.name,
            type: rail.type as RailType,
            country: rail.country,
            currency: rail.currency,
            operator: rail.operator,
            settlementDelaySeconds: rail.settlementDelaySeconds,
            pendingTimeoutSeconds: rail.pendingTimeoutSeconds,
            active: rail.active,
            ...body,
          },
        }),
      ),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['rails'] });
      onDone();
    },
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
        save.mutate({
          minAmount: amount('minAmount'),
          maxAmount: amount('maxAmount'),
          feePercentage: Number(form.get('feePercentage')),
          feeFixed: amount('feeFixed'),
          payOutFeePercentage: Number(form.get('payOutFeePercentage')),
          payOutFeeFixed: amount('payOutFeeFixed'),
        });
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
