/**
 * Staff: one merchant's page — its profile and figures, its KYC level, suspend or reactivate,
 * and its own fees per rail and direction (fee overrides). Every role that may read sees the
 * page; the write controls are ADMIN's only, as the API enforces (SUPPORT gets 403).
 */
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { ConfirmButton } from '../../confirm';
import { formatCount, formatDateTime } from '../../format';
import {
  useAdminMerchant,
  useMerchantFees,
  useRemoveMerchantFee,
  useSetMerchantFee,
  useSetMerchantKyc,
  useSetMerchantStatus,
  type KycLevel,
  type MerchantFeeBody,
} from '../../hooks/api/admin-merchants';
import { useAdminRails } from '../../hooks/api/admin-rails';
import { CardForm, ErrorBox, Field, QueryView, SaveWithStatus, SelectField, StatusBadge, useStatusText } from '../../ui';

/** The KYC levels offered, in this order. */
const KYC_LEVELS: KycLevel[] = ['NONE', 'BASIC', 'ADVANCED', 'FULL', 'VERIFIED'];
type Direction = MerchantFeeBody['direction'];

export default function MerchantDetail() {
  const { t, i18n } = useTranslation();
  const statusText = useStatusText();
  const id = useParams().id!;
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const overview = useAdminMerchant(id);
  const fees = useMerchantFees(id);
  const rails = useAdminRails({ enabled: isAdmin });
  const setKyc = useSetMerchantKyc(id);
  const setStatus = useSetMerchantStatus();
  const setFee = useSetMerchantFee(id);
  const removeFee = useRemoveMerchantFee(id);
  const directionLabel = (direction: string) => (direction === 'PAY_IN' ? t('tx.payIn') : t('tx.payOut'));

  return (
    <>
      <p>
        <Link to="/merchants">← {t('common.back')}</Link>
      </p>
      {!isAdmin && <p className="muted">{t('admin.readOnly')}</p>}
      <QueryView query={overview}>
        {({ merchant, applicationCount, transactionCount, transactionsByStatus }) => (
          <>
            <div className="section-head">
              <h1>{merchant.fullName}</h1>
              <StatusBadge status={merchant.status} />
            </div>
            <section className="card" aria-labelledby="merchant-profile">
              <h2 id="merchant-profile">{t('admin.overview')}</h2>
              <dl className="facts">
                <dt>{t('common.email')}</dt>
                <dd>{merchant.email}</dd>
                <dt>{t('auth.phone')}</dt>
                <dd>{merchant.phone ?? '—'}</dd>
                <dt>{t('auth.country')}</dt>
                <dd>{merchant.country ?? '—'}</dd>
                <dt>{t('admin.kyc')}</dt>
                <dd>{merchant.kycLevel}</dd>
                <dt>{t('admin.since')}</dt>
                <dd>{formatDateTime(merchant.createdAt, i18n.language)}</dd>
                <dt>{t('shell.applications')}</dt>
                <dd>{formatCount(applicationCount, i18n.language)}</dd>
                <dt>{t('admin.transactionCount')}</dt>
                <dd>
                  {formatCount(transactionCount, i18n.language)}
                  {Object.entries(transactionsByStatus).map(([status, figures]) => (
                    <span key={status} className="muted">
                      {' · '}
                      {statusText(status)} {formatCount(figures.count, i18n.language)}
                    </span>
                  ))}
                </dd>
              </dl>
              {setStatus.error && <ErrorBox error={setStatus.error} />}
              {isAdmin && merchant.status === 'ACTIVE' && (
                <ConfirmButton label={t('admin.suspend')} question={t('admin.suspendConfirm', { name: merchant.fullName })} isPending={setStatus.isPending} onConfirm={() => setStatus.mutate({ id, status: 'SUSPENDED' })} />
              )}
              {isAdmin && merchant.status === 'SUSPENDED' && (
                <button type="button" className="secondary" disabled={setStatus.isPending} onClick={() => setStatus.mutate({ id, status: 'ACTIVE' })}>
                  {t('admin.reactivate')}
                </button>
              )}
            </section>
            {isAdmin && (
              <CardForm label={t('admin.kycChange')} onSubmit={(form) => setKyc.mutate(form.get('kycLevel') as KycLevel)}>
                <SelectField key={merchant.kycLevel} label={t('admin.kyc')} name="kycLevel" defaultValue={merchant.kycLevel} options={KYC_LEVELS.map((level): [string, string] => [level, level])} />
                <SaveWithStatus mutation={setKyc} doneText={t('admin.kycSaved')} />
              </CardForm>
            )}
          </>
        )}
      </QueryView>

      <section className="card" aria-labelledby="merchant-fees">
        <h2 id="merchant-fees">{t('admin.feeOverrides')}</h2>
        <p className="muted">{t('admin.feeOverridesHelp')}</p>
        {removeFee.error && <ErrorBox error={removeFee.error} />}
        <QueryView query={fees}>
          {(list) =>
            list.length === 0 ? (
              <p className="muted">{t('admin.noFeeOverride')}</p>
            ) : (
              <ul className="rows">
                {list.map((fee) => (
                  <li key={`${fee.providerCode}-${fee.direction}`} className="row">
                    <span className="row-main">
                      <span className="ref">{fee.providerCode}</span>
                      <span className="muted">
                        {directionLabel(fee.direction)} · {fee.feePercentage} % + {fee.feeFixed}
                      </span>
                    </span>
                    {isAdmin && (
                      <span className="row-side">
                        <ConfirmButton
                          label={t('admin.remove')}
                          name={`${fee.providerCode} ${directionLabel(fee.direction)}`}
                          question={t('admin.removeFeeConfirm', { rail: fee.providerCode, direction: directionLabel(fee.direction) })}
                          isPending={removeFee.isPending}
                          onConfirm={() => removeFee.mutate({ providerCode: fee.providerCode, direction: fee.direction })}
                        />
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            )
          }
        </QueryView>
        {isAdmin && (
          <form
            aria-label={t('admin.setFee')}
            onSubmit={(event) => {
              event.preventDefault();
              const form = new FormData(event.currentTarget);
              setFee.mutate({
                providerCode: String(form.get('providerCode')),
                direction: form.get('direction') as Direction,
                feePercentage: Number(form.get('feePercentage')),
                feeFixed: Number(form.get('feeFixed')),
              });
            }}
          >
            <h3>{t('admin.setFee')}</h3>
            <SelectField key={`rails-${rails.data?.length ?? 0}`} label={t('tx.rail')} name="providerCode" options={(rails.data ?? []).map((r): [string, string] => [r.code, `${r.name} (${r.code})`])} />
            <SelectField
              label={t('tx.direction')}
              name="direction"
              options={[
                ['PAY_IN', t('tx.payIn')],
                ['PAY_OUT', t('tx.payOut')],
              ]}
            />
            <Field label={t('admin.feePercentage')} name="feePercentage" type="number" inputMode="decimal" required min={0} max={100} step={0.01} />
            <Field label={t('admin.feeFixed')} name="feeFixed" type="number" inputMode="numeric" required min={0} step={1} defaultValue={0} />
            <SaveWithStatus mutation={setFee} doneText={t('admin.feeSaved')} />
          </form>
        )}
      </section>
    </>
  );
}
