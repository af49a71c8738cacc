/** Small shared pieces: loading and error states, labelled fields, amounts, statuses. */
import { useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from './api/client';
import { formatMoney } from './format';
import { catalogueKey } from './i18n/messages';

/** The translated message of an API failure (its code), never the API's own message. */
export function useErrorText(): (error: unknown) => string {
  const { t } = useTranslation();
  return (error) => {
    const code = error instanceof ApiFailure ? error.code : 'NETWORK_ERROR';
    const key = catalogueKey('errors', code);
    return key ? t(key) : t('errors.UNKNOWN', { code });
  };
}

/** The translated name of a status the API sends (the status itself when the catalogue lacks it). */
export function useStatusText(): (status: string) => string {
  const { t } = useTranslation();
  return (status) => {
    const key = catalogueKey('status', status);
    return key ? t(key) : status;
  };
}

/** An API error as an alert, with the field errors' names and a retry button when given. */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const text = useErrorText();
  const fields = error instanceof ApiFailure && error.fields ? Object.keys(error.fields) : [];
  return (
    <div role="alert" className="error">
      <p>{text(error)}{fields.length > 0 ? ` (${fields.join(', ')})` : ''}</p>
      {onRetry && (
        <button type="button" className="secondary" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}

/** The loading state of a call. */
export function Loading() {
  const { t } = useTranslation();
  return (
    <p className="loading" role="status">
      {t('common.loading')}
    </p>
  );
}

/** What a query shows: loading, its error with a retry, or its data through `children`. */
export function QueryView<T>({ query, children }: { query: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown }; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading />;
  if (query.error || query.data === undefined) return <ErrorBox error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/** A labelled input. */
export function Field({ label, ...input }: { label: string } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className="field">
      <span>{label}</span>
      <input {...input} />
    </label>
  );
}

/** A labelled select of `options` (value → label). */
export function SelectField({ label, options, ...select }: { label: string; options: [string, string][] } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <label className="field">
      <span>{label}</span>
      <select {...select}>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

/** An amount in base units. */
export function Money({ amount, currency }: { amount: number; currency: string }) {
  const { i18n } = useTranslation();
  return <span className="money">{formatMoney(amount, currency, i18n.language)}</span>;
}

/** A status as a labelled badge. */
export function StatusBadge({ status }: { status: string }) {
  const statusText = useStatusText();
  return <span className={`badge badge-${status.toLowerCase()}`}>{statusText(status)}</span>;
}

/** A secret shown once, with a copy button. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation();
  const [isCopied, setCopied] = useState(false);
  return (
    <div className="secret" role="region" aria-label={label}>
      <p>{label}</p>
      <code>{value}</code>
      <button
        type="button"
        onClick={() => {
          void navigator.clipboard?.writeText(value).then(() => setCopied(true));
        }}
      >
        {isCopied ? t('common.copied') : t('common.copy')}
      </button>
    </div>
  );
}

/** Previous / "page X of Y" / Next under a paged list (nothing when there is one page); `page` counts from 0. */
export function Pager({ page, data, onPage }: { page: number; data: { totalPages: number; first: boolean; last: boolean }; onPage: (page: number) => void }) {
  const { t } = useTranslation();
  if (data.totalPages <= 1) return null;
  return (
    <div className="pager">
      <button type="button" className="secondary" disabled={data.first} onClick={() => onPage(page - 1)}>
        {t('common.previous')}
      </button>
      <span>{t('common.pageOf', { page: page + 1, pages: data.totalPages })}</span>
      <button type="button" className="secondary" disabled={data.last} onClick={() => onPage(page + 1)}>
        {t('common.next')}
      </button>
    </div>
  );
}

/** A page's title with its create button, hidden while the create form is open. */
export function CreateHead({ title, createLabel, isCreating, onCreate }: { title: string; createLabel: string; isCreating: boolean; onCreate: () => void }) {
  return (
    <div className="section-head">
      <h1>{title}</h1>
      {!isCreating && (
        <button type="button" onClick={onCreate}>
          {createLabel}
        </button>
      )}
    </div>
  );
}

/** A card form titled and labelled `label`, whose submit hands over its data instead of reloading. */
export function CardForm({ label, onSubmit, children }: { label: string; onSubmit: (form: FormData) => void; children: ReactNode }) {
  return (
    <form
      className="card"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(new FormData(event.currentTarget));
      }}
    >
      <h2>{label}</h2>
      {children}
    </form>
  );
}

/** A create form's Save and Cancel buttons. */
export function SaveCancel({ isPending, onCancel }: { isPending: boolean; onCancel: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="actions">
      <button type="submit" disabled={isPending}>
        {t('common.save')}
      </button>
      <button type="button" className="secondary" onClick={onCancel}>
        {t('common.cancel')}
      </button>
    </div>
  );
}

/** A form's Save button, with its mutation's error, or `doneText` once it succeeded. */
export function SaveWithStatus({ mutation, doneText }: { mutation: { error: unknown; isSuccess: boolean; isPending: boolean }; doneText: string }) {
  const { t } = useTranslation();
  return (
    <>
      {mutation.error ? <ErrorBox error={mutation.error} /> : null}
      {mutation.isSuccess && <p role="status" className="notice">{doneText}</p>}
      <button type="submit" disabled={mutation.isPending}>
        {t('common.save')}
      </button>
    </>
  );
}

/** A query's paged list: its rows through `children` and the pager, or `empty` when it has none. */
export function PagedList<T>({ query, page, onPage, empty, children }: { query: { isPending: boolean; error: unknown; data: { content: T[]; totalPages: number; first: boolean; last: boolean } | undefined; refetch: () => unknown }; page: number; onPage: (page: number) => void; empty?: string; children: (item: T) => ReactNode }) {
  return (
    <QueryView query={query}>
      {(data) =>
        empty !== undefined && data.content.length === 0 ? (
          <p className="muted">{empty}</p>
        ) : (
          <>
            <ul className="rows">{data.content.map((item) => children(item))}</ul>
            <Pager page={page} data={data} onPage={onPage} />
          </>
        )
      }
    </QueryView>
  );
}

/** Saves a downloaded file (`file`) under `fileName`, as the browser's download. */
export function saveFile({ file, fileName }: { file: Blob; fileName: string }): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  URL.revokeObjectURL(url);
}
