/**
 * Staff: reconciliation with the operators — the latest runs and their drift, the open cases by
 * kind with their evidence side by side (operator, Kolo, merchant), and, for ADMIN, resolving a
 * case with an action and a note. What an action does is the API's (docs/reconciliation.md).
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../auth/session';
import { useReconciliationCases, useReconciliationRuns, useResolveCase, type CaseKind, type ReconciliationCase, type ResolutionBody } from '../../hooks/api/admin-reconciliation';
import { ErrorBox, Money, PagedList, QueryView, SelectField } from '../../ui';

const KINDS: CaseKind[] = ['OPERATOR_ONLY', 'KOLO_ONLY', 'STATUS_MISMATCH', 'AMOUNT_MISMATCH', 'MERCHANT_NOT_TOLD', 'BALANCE_DRIFT'];
const ACTIONS: ResolutionBody['action'][] = ['APPLY_OPERATOR_SUCCESS', 'RECORD_REVERSAL', 'WRITE_OFF', 'ACCEPT'];

/** One side of a case's evidence, as label/value lines (the API's fields, shown as they are). */
function Side({ title, side }: { title: string; side: unknown }) {
  const { t } = useTranslation();
  const entries = side && typeof side === 'object' ? Object.entries(side as Record<string, unknown>) : [];
  return (
    <section className="card" aria-label={title}>
      <h3>{title}</h3>
      {entries.length === 0 ? (
        <p className="muted">{t('admin.reconNone')}</p>
      ) : (
        <dl>
          {entries.map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{Array.isArray(value) ? value.join(', ') : String(value ?? '—')}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}

function CaseItem({ item, isAdmin }: { item: ReconciliationCase; isAdmin: boolean }) {
  const { t } = useTranslation();
  const resolve = useResolveCase();
  const [action, setAction] = useState<ResolutionBody['action']>('ACCEPT');
  const [note, setNote] = useState('');
  const evidence = item.evidence as { operator?: unknown; kolo?: unknown; merchant?: unknown };
  return (
    <li>
      <div className="row">
        <span className="row-main">
          <span className="ref">{t(`admin.reconKind.${item.kind}`)}</span>
          <span className="muted">
            {item.railCode} · {item.operatorTransactionId ?? '—'}
          </span>
        </span>
        <span className="row-side">
          <Money amount={item.amount} currency={item.currency} />
        </span>
      </div>
      <div className="grid-3">
        <Side title={t('admin.reconOperator')} side={evidence.operator} />
        <Side title={t('admin.reconKolo')} side={evidence.kolo} />
        <Side title={t('admin.reconMerchant')} side={evidence.merchant} />
      </div>
      {isAdmin && (
        <form
          aria-label={t('admin.reconResolve')}
          onSubmit={(event) => {
            event.preventDefault();
            resolve.mutate({ id: item.id, action, note });
          }}
        >
          <SelectField label={t('admin.reconAction')} value={action} options={ACTIONS.map((a) => [a, t(`admin.reconActions.${a}`)])} onChange={(e) => setAction(e.target.value as ResolutionBody['action'])} />
          <label>
            {t('admin.reconNote')}
            <input required maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
          </label>
          {resolve.error && <ErrorBox error={resolve.error} />}
          <button type="submit" disabled={resolve.isPending || note.trim() === ''}>
            {t('admin.reconResolve')}
          </button>
        </form>
      )}
    </li>
  );
}

export default function Reconciliation() {
  const { t } = useTranslation();
  const { user } = useSession();
  const isAdmin = user?.role === 'ADMIN';
  const [kind, setKind] = useState<CaseKind | ''>('');
  const [page, setPage] = useState(0);
  const runs = useReconciliationRuns();
  const cases = useReconciliationCases({ status: 'OPEN', page, size: 20, ...(kind ? { kind } : {}) });
  return (
    <>
      <h1>{t('admin.reconciliation')}</h1>
      {!isAdmin && <p className="muted">{t('admin.readOnly')}</p>}
      <h2>{t('admin.reconRuns')}</h2>
      <QueryView query={runs}>
        {(data) =>
          data.content.length === 0 ? (
            <p className="muted">{t('admin.reconNoRun')}</p>
          ) : (
            <ul className="rows">
              {data.content.map((run) => (
                <li key={run.id} className="row">
                  <span className="row-main">
                    <span className="ref">{run.railCode}</span>
                    <span className="muted">{t('admin.period', { from: run.periodFrom.slice(0, 16), to: run.periodTo.slice(0, 16) })}</span>
                  </span>
                  <span className="row-side">
                    {t('admin.reconOpened', { count: run.casesOpened })} · {t('admin.reconDrift')} {run.currency ? <Money amount={run.drift} currency={run.currency} /> : run.drift}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
      <h2>{t('admin.reconOpenCases')}</h2>
      <SelectField
        label={t('admin.reconKindFilter')}
        value={kind}
        options={[['', t('admin.reconAllKinds')], ...KINDS.map((k): [string, string] => [k, t(`admin.reconKind.${k}`)])]}
        onChange={(e) => {
          setKind(e.target.value as CaseKind | '');
          setPage(0);
        }}
      />
      <PagedList query={cases} page={page} onPage={setPage} empty={t('admin.reconNoCase')}>
        {(item) => <CaseItem key={item.id} item={item} isAdmin={isAdmin} />}
      </PagedList>
    </>
  );
}
