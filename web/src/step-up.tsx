/**
 * The inline step-up: when a sensitive action is refused because the second factor is not fresh
 * (FRESH_SECOND_FACTOR_REQUIRED), a modal dialog asks for the authenticator's code, confirms it
 * with the API (fresh for 5 minutes) and then runs the action again, without leaving the screen.
 */
import { useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiFailure } from './api/client';
import { useVerifyTwoFactor } from './hooks/api/two-factor';
import { ErrorBox } from './ui';

/** Whether `error` asks for a fresh second factor before the action is tried again. */
export function needsStepUp(error: unknown): boolean {
  return error instanceof ApiFailure && error.code === 'FRESH_SECOND_FACTOR_REQUIRED';
}

/**
 * The dialog: `onConfirmed` runs once the code is accepted (the caller repeats its action),
 * `onCancel` when the person closes it.
 */
export function StepUpDialog({ onConfirmed, onCancel }: { onConfirmed: () => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const titleId = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const verify = useVerifyTwoFactor({ onSuccess: onConfirmed });
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} className="step-up" aria-labelledby={titleId} onCancel={onCancel}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const code = String(new FormData(event.currentTarget).get('code') ?? '').trim();
          verify.mutate({ code });
        }}
      >
        <h2 id={titleId}>{t('stepUp.title')}</h2>
        <p className="muted">{t('stepUp.help')}</p>
        <label className="field">
          <span>{t('twoFactor.code')}</span>
          <input name="code" inputMode="numeric" autoComplete="one-time-code" required maxLength={20} autoFocus />
        </label>
        {verify.error ? <ErrorBox error={verify.error} /> : null}
        <div className="actions">
          <button type="submit" disabled={verify.isPending}>
            {t('common.confirm')}
          </button>
          <button type="button" className="secondary" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
