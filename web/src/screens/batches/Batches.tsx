/**
 * Batch pay-outs of the current environment: the list (status and progress of each, pages of 20)
 * and "new batch": a CSV file chosen or rows pasted (the documented columns), checked first by
 * the API (dry run: each invalid row named with its line and its field's error in the app's
 * language, or the totals — count, amounts, fees, what approval will reserve), then sent for
 * approval with one idempotency key per checked text.
 * Changing the text asks for a new check. What is valid and what it costs comes from the API.
 */
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from '../../api/client';
import { useSession } from '../../auth/session';
import { formatDateTime } from '../../format';
import { useApplications } from '../../hooks/api/applications';
import { useBatches, useCreateBatch, type BatchCreated } from '../../hooks/api/batches';
import { CreateHead, ErrorBox, Money, PagedList, SelectField, StatusBadge } from '../../ui';

/** The header line of an example file: the columns the API reads. */
const CSV_HEADER = 'amount,currency,paymentMethod,beneficiaryAccount,beneficiaryName,merchantReference';

/** 32 random hex characters. */
function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The fields of a batch item the API names in its errors; `item` is an item that is not an object. */
const ITEM_FIELDS = ['amount', 'currency', 'paymentMethod', 'beneficiaryAccount', 'beneficiaryName', 'merchantReference', 'item'] as const;
type ItemField = (typeof ITEM_FIELDS)[number];

/** The item field of an error key: `items[<index>].<field>` → field, `items[<index>]` → `item`; null for other keys. */
function itemFieldOf(key: string): ItemField | null {
  const match = /^items\[\d+\](?:\.(\w+))?$/.exec(key);
  if (!match) return null;
  const field = match[1] ?? 'item';
  return (ITEM_FIELDS as readonly string[]).includes(field) ? (field as ItemField) : null;
}

/**
 * The API's per-row errors, by line: the row from the message's documented `ligne N : ` prefix
 * (the item's line in the file), an item's error by its field (shown from the catalogue, in the
 * app's language), and any other key (`csv`, `items`: the file or the list as a whole) with the
 * API's own message.
 */
function rowErrors(error: unknown): { row: number | null; field: ItemField | null; text: string }[] {
  if (!(error instanceof ApiFailure) || error.code !== 'VALIDATION_ERROR' || !error.fields) return [];
  return Object.entries(error.fields)
    .map(([key, message]) => {
      const match = /^ligne (\d+) : (.*)$/s.exec(message);
      return { row: match ? Number(match[1]) : null, field: itemFieldOf(key), text: match ? match[2]! : message };
    })
    .sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}

/** The "new batch" form. */
function NewBatch({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const { environment } = useSession();
  const navigate = useNavigate();
  const apps = useApplications();
  const activeApps = (apps.data ?? []).filter((a) => a.status === 'ACTIVE');
  const [appId, setAppId] = useState<string | null>(null);
  const [csv, setCsv] = useState('');
  const [checked, setChecked] = useState<{ csv: string; appId: string; idempotencyKey: string; totals: BatchCreated['totals'] } | null>(null);
  const app = activeApps.find((a) => a.id === appId) ?? activeApps[0];
  const check = useCreateBatch();
  const create = useCreateBatch({ onSuccess: (data) => data.batch && navigate(`/batches/${data.batch.id}`) });
  const errors = rowErrors(check.error);
  const isChecked = checked !== null && checked.csv === csv && checked.appId === app?.id;

  return (
    <section className="card" aria-labelledby="new-batch">
      <h2 id="new-batch">{t('batch.create')}</h2>
      {!app ? (
        <p className="muted">{t('transfer.noApp')}</p>
      ) : (
        <form
          aria-label={t('batch.create')}
          onSubmit={(event) => {
            event.preventDefault();
            create.reset();
            check.mutate(
              { appId: app.id, idempotencyKey: '', body: { csv, dryRun: true, environment } },
              { onSuccess: (data) => setChecked({ csv, appId: app.id, idempotencyKey: newIdempotencyKey(), totals: data.totals }), onError: () => setChecked(null) },
            );
          }}
        >
          {activeApps.length > 1 && (
            <SelectField
              label={t('transfer.fromApp')}
              name="appId"
              value={app.id}
              onChange={(event) => setAppId(event.currentTarget.value)}
              options={activeApps.map((a): [string, string] => [a.id, `${a.name} (${a.currency})`])}
            />
          )}
          <label className="field">
            <span>{t('batch.file')}</span>
            <input
              type="file"
              accept=".csv,text/csv,text/plain"
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                if (file) void file.text().then((text) => setCsv(text.replace(/^\uFEFF/, '')));
              }}
            />
          </label>
          <label className="field">
            <span>{t('batch.rows')}</span>
            <textarea name="csv" rows={8} required value={csv} spellCheck={false} placeholder={CSV_HEADER} aria-describedby="batch-columns" onChange={(event) => setCsv(event.currentTarget.value)} />
          </label>
          <p id="batch-columns" className="muted">
            {t('batch.columns', { header: CSV_HEADER })}
          </p>
          {errors.length > 0 && (
            <div role="alert" className="error">
              <p>{t('batch.rowErrors', { count: errors.length })}</p>
              <ul>
                {errors.map((e, i) => (
                  <li key={i}>
                    {e.row === null ? (e.field ? t(`batch.itemField.${e.field}`) : e.text) : t('batch.rowError', { row: e.row, text: e.field ? t(`batch.itemField.${e.field}`) : e.text })}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {check.error && errors.length === 0 ? <ErrorBox error={check.error} /> : null}
          {isChecked && (
            <div role="region" aria-label={t('batch.totals')}>
              <dl className="facts">
                <dt>{t('batch.itemCount')}</dt>
                <dd>{checked.totals.itemCount}</dd>
                <dt>{t('batch.totalAmount')}</dt>
                <dd>
                  <Money amount={checked.totals.totalAmount} currency={checked.totals.currency} />
                </dd>
                <dt>{t('batch.feeAmount')}</dt>
                <dd>
                  <Money amount={checked.totals.feeAmount} currency={checked.totals.currency} />
                </dd>
                <dt>{t('batch.reservedAmount')}</dt>
                <dd>
                  <Money amount={checked.totals.reservedAmount} currency={checked.totals.currency} />
                </dd>
              </dl>
            </div>
          )}
          {create.error ? <ErrorBox error={create.error} /> : null}
          <div className="actions">
            {isChecked ? (
              <button
                type="button"
                disabled={create.isPending}
                onClick={() => create.mutate({ appId: checked.appId, idempotencyKey: checked.idempotencyKey, body: { csv: checked.csv, environment } })}
              >
                {t('batch.submit')}
              </button>
            ) : (
              <button type="submit" disabled={check.isPending || csv.trim() === ''}>
                {t('batch.check')}
              </button>
            )}
            <button type="button" className="secondary" onClick={onClose}>
              {t('common.cancel')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

export default function Batches() {
  const { t, i18n } = useTranslation();
  const { environment } = useSession();
  const [params, setParams] = useSearchParams();
  const [isCreating, setCreating] = useState(false);
  const page = Number(params.get('page') ?? 0);
  const list = useBatches({ environment, page, size: 20 });
  return (
    <>
      <CreateHead title={t('batch.title')} createLabel={t('batch.create')} isCreating={isCreating} onCreate={() => setCreating(true)} />
      {isCreating && <NewBatch onClose={() => setCreating(false)} />}
      <PagedList query={list} page={page} onPage={(p) => setParams({ page: String(p) })} empty={t('batch.none')}>
        {(b) => (
          <li key={b.id}>
            <Link to={`/batches/${b.id}`} className="row">
              <span className="row-main">
                <span className="ref">{t('batch.name', { count: b.itemCount })}</span>
                <span className="muted">{t('batch.progressText', { done: b.progress.succeeded + b.progress.failed, total: b.itemCount, failed: b.progress.failed })}</span>
                <span className="muted">{formatDateTime(b.createdAt, i18n.language)}</span>
              </span>
              <span className="row-side">
                <Money amount={-b.reservedAmount} currency={b.currency} />
                <StatusBadge status={b.status} />
              </span>
            </Link>
          </li>
        )}
      </PagedList>
    </>
  );
}
