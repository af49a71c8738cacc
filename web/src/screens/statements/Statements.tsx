/**
 * The merchant's statements: a range shown at once (opening, credits, debits, closing per balance)
 * or downloaded as CSV; any range prepared in the background and downloaded when ready.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  useDownloadStatement,
  useRequestStatement,
  useStatement,
  useStatementCsv,
  useStatementRequests,
  type StatementFile,
  type StatementRange,
} from '../../hooks/api/statements';
import { ErrorBox, Field, Money, QueryView } from '../../ui';

/** Saves a downloaded file under its name. */
function save({ file, fileName }: StatementFile): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

export default function Statements() {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<StatementRange>({ from: todayUtc().slice(0, 8) + '01', to: todayUtc() });
  const [shown, setShown] = useState<StatementRange | null>(null);
  const statement = useStatement(shown, { retry: false });
  const csv = useStatementCsv({ onSuccess: save });
  const request = useRequestStatement();
  const requests = useStatementRequests();
  const download = useDownloadStatement({ onSuccess: save });
  return (
    <>
      <h1>{t('statements.title')}</h1>
      <p className="muted">{t('statements.help')}</p>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setShown({ ...draft });
        }}
      >
        <Field label={t('statements.from')} type="date" required value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        <Field label={t('statements.to')} type="date" required value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
        <button type="submit">{t('statements.show')}</button>
        <button type="button" className="secondary" disabled={csv.isPending} onClick={() => csv.mutate({ ...draft })}>
          {t('statements.csv')}
        </button>
        <button type="button" className="secondary" disabled={request.isPending} onClick={() => request.mutate({ ...draft })}>
          {t('statements.background')}
        </button>
      </form>
      {csv.error && <ErrorBox error={csv.error} />}
      {request.error && <ErrorBox error={request.error} />}
      {shown && (
        <QueryView query={statement}>
          {(data) => (
            <ul className="rows" aria-label={t('statements.title')}>
              {data.totals.map((total) => (
                <li key={`${total.environment}-${total.currency}-${total.balance}`} className="row">
                  <span className="row-main">
                    <span className="ref">
                      {t(`statements.balance.${total.balance}`)} · {total.environment} · {total.currency}
                    </span>
                    <span className="muted">{t('statements.movements', { count: total.movementCount })}</span>
                    <span>
                      {t('statements.opening')} : <Money amount={total.opening} currency={total.currency} />
                    </span>
                    <span className="muted">
                      {t('statements.credits')} : <Money amount={total.credits} currency={total.currency} /> · {t('statements.debits')} :{' '}
                      <Money amount={total.debits} currency={total.currency} />
                    </span>
                    <span>
                      {t('statements.closing')} : <Money amount={total.closing} currency={total.currency} />
                    </span>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      )}
      <h2>{t('statements.prepared')}</h2>
      {download.error && <ErrorBox error={download.error} />}
      <QueryView query={requests}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">{t('statements.noneYet')}</p>
          ) : (
            <ul className="rows">
              {list.map((s) => (
                <li key={s.id} className="row">
                  <span className="row-main">
                    {s.from} → {s.to}
                  </span>
                  <span className="row-side">
                    <span className={`badge badge-${s.status.toLowerCase()}`}>{t(`statements.requestStatus.${s.status}`)}</span>
                    {s.status === 'READY' && (
                      <button type="button" className="secondary" aria-label={`${t('statements.download')} ${s.from} → ${s.to}`} disabled={download.isPending} onClick={() => download.mutate(s.id)}>
                        {t('statements.download')}
                      </button>
                    )}
                  </span>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}
