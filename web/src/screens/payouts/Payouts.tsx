/**
 * Pay-outs: the available balance, a transfer to any number (SendTransfer), withdrawal accounts
 * (add, choose the default, remove), and "withdraw now" to an account, with a confirmation step
 * showing what leaves the balance.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { formatMoney, parseAmount } from '../../format';
import { ConfirmButton } from '../../confirm';
import { useBalances } from '../../hooks/api/balances';
import { useProviders } from '../../hooks/api/providers';
import {
  useCreateWithdrawalAccount,
  useDeleteWithdrawalAccount,
  useSetDefaultWithdrawalAccount,
  useWithdraw,
  useWithdrawalAccounts,
  type WithdrawalAccount,
} from '../../hooks/api/withdrawals';
import { ErrorBox, Field, Money, QueryView, SelectField } from '../../ui';
import { WithdrawalSchedule } from './WithdrawalSchedule';
import { SendTransfer } from './SendTransfer';

/** A withdrawal reviewed in the form, waiting for its confirmation. */
interface Withdrawal {
  amount: number;
  currency: string;
  account: WithdrawalAccount;
}

export default function Payouts() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [pending, setPending] = useState<Withdrawal | null>(null);
  const [isAmountBad, setAmountBad] = useState(false);
  const balances = useBalances({ environment });
  const accounts = useWithdrawalAccounts();
  const rails = useProviders();
  const addAccount = useCreateWithdrawalAccount();
  const makeDefault = useSetDefaultWithdrawalAccount();
  const removeAccount = useDeleteWithdrawalAccount();
  const withdraw = useWithdraw({ onSuccess: () => setPending(null) });

  return (
    <>
      <h1>{t('payout.title')}</h1>
      <QueryView query={balances}>
        {(lines) => (
          <div className="cards">
            {lines.length === 0 && <p className="muted">{t('home.noBalance')}</p>}
            {lines.map((line) => (
              <div className="card kpi" key={line.currency}>
                <span className="muted">
                  {t('home.available')} ({line.currency})
                </span>
                <span className="big">
                  <Money amount={line.availableAmount} currency={line.currency} />
                </span>
                <span className="muted">
                  {t('home.batchReserved')} : <Money amount={line.batchReservedAmount} currency={line.currency} />
                </span>
              </div>
            ))}
          </div>
        )}
      </QueryView>

      <SendTransfer />

      <section aria-labelledby="withdraw" className="card">
        <h2 id="withdraw">{t('payout.withdraw')}</h2>
        <QueryView query={accounts}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">{t('payout.noAccount')}</p>
            ) : pending ? (
              <div role="group" aria-label={t('payout.confirmTitle')}>
                <p>
                  {t('payout.confirm', {
                    amount: formatMoney(pending.amount, pending.currency, i18n.language),
                    account: `${pending.account.accountName} (${pending.account.providerCode} ${pending.account.accountNumber})`,
                  })}
                </p>
                {withdraw.error && <ErrorBox error={withdraw.error} />}
                <div className="actions">
                  <button
                    type="button"
                    disabled={withdraw.isPending}
                    onClick={() =>
                      withdraw.mutate({
                        amount: pending.amount,
                        currency: pending.currency,
                        paymentMethod: pending.account.providerCode,
                        beneficiaryAccount: pending.account.accountNumber,
                        beneficiaryName: pending.account.accountName,
                        environment,
                      })
                    }
                  >
                    {t('common.confirm')}
                  </button>
                  <button type="button" className="secondary" onClick={() => setPending(null)}>
                    {t('common.cancel')}
                  </button>
                </div>
              </div>
            ) : (
              <form
                onSubmit={(event) => {
                  event.preventDefault();
                  const form = new FormData(event.currentTarget);
                  const currency = String(form.get('currency'));
                  const amount = parseAmount(String(form.get('amount')), currency, i18n.language);
                  if (amount === null || amount <= 0) return setAmountBad(true);
                  setAmountBad(false);
                  withdraw.reset();
                  const account = list.find((a) => a.id === String(form.get('accountId')));
                  if (account) setPending({ amount, currency, account });
                }}
              >
                <SelectField
                  label={t('payout.account')}
                  name="accountId"
                  defaultValue={list.find((a) => a.isDefault)?.id}
                  options={list.map((a): [string, string] => [a.id, `${a.accountName} · ${a.providerCode} ${a.accountNumber}`])}
                />
                <SelectField label={t('apps.currency')} name="currency" options={(balances.data ?? []).map((b): [string, string] => [b.currency, b.currency])} />
                <Field label={t('tx.amount')} name="amount" inputMode="decimal" required aria-invalid={isAmountBad} />
                {isAmountBad && <p className="error" role="alert">{t('errors.VALIDATION_ERROR')}</p>}
                {withdraw.data && (
                  <p role="status" className="notice">
                    {t('payout.started', { reference: withdraw.data.reference })}
                  </p>
                )}
                <button type="submit">{t('payout.review')}</button>
              </form>
            )
          }
        </QueryView>
      </section>

      <section aria-labelledby="accounts" className="card">
        <h2 id="accounts">{t('payout.accounts')}</h2>
        {makeDefault.error && <ErrorBox error={makeDefault.error} />}
        {removeAccount.error && <ErrorBox error={removeAccount.error} />}
        <QueryView query={accounts}>
          {(list) => (
            <ul className="rows">
              {list.map((a) => (
                <li key={a.id} className="row">
                  <span className="row-main">
                    <span className="ref">{a.accountName}</span>
                    <span className="muted">
                      {a.providerCode} · {a.accountNumber}
                    </span>
                  </span>
                  <span className="row-side">
                    {a.isDefault ? (
                      <span className="badge badge-active">{t('payout.default')}</span>
                    ) : (
                      <button type="button" className="secondary" aria-label={`${t('payout.makeDefault')} ${a.accountName}`} onClick={() => makeDefault.mutate(a.id)}>
                        {t('payout.makeDefault')}
                      </button>
                    )}
                    <ConfirmButton
                      label={t('payout.removeAccount')}
                      name={a.accountName}
                      question={t('payout.removeConfirm', { account: `${a.accountName} · ${a.accountNumber}` })}
                      isPending={removeAccount.isPending}
                      onConfirm={() => removeAccount.mutate(a.id)}
                    />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
        <form
          aria-label={t('payout.addAccount')}
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            addAccount.mutate({
              providerCode: String(form.get('providerCode')),
              accountNumber: String(form.get('accountNumber')).trim(),
              accountName: String(form.get('accountName')).trim(),
            });
          }}
        >
          <h3>{t('payout.addAccount')}</h3>
          <SelectField key={`rails-${rails.data?.length ?? 0}`} label={t('tx.rail')} name="providerCode" options={(rails.data ?? []).map((r): [string, string] => [r.code, r.name])} />
          <Field label={t('payout.accountNumber')} name="accountNumber" type="tel" required maxLength={100} />
          <Field label={t('payout.accountName')} name="accountName" required maxLength={255} />
          {addAccount.error && <ErrorBox error={addAccount.error} />}
          <button type="submit" disabled={addAccount.isPending}>
            {t('payout.addAccount')}
          </button>
        </form>
      </section>
      {accounts.data && accounts.data.length > 0 && <WithdrawalSchedule accounts={accounts.data} />}
    </>
  );
}
