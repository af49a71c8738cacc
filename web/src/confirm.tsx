/**
 * A destructive button that asks first: a click shows `question` in place, with Confirm and
 * Cancel; only Confirm calls `onConfirm`. Kept in the page (no `window.confirm`), so it reads
 * the same to screen readers and keyboards as the rest of the screen.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** `label` is the button's text, `name` (optional) what it acts on, added to its accessible name. */
export function ConfirmButton({ label, name, question, isPending, onConfirm }: { label: string; name?: string; question: string; isPending: boolean; onConfirm: () => void }) {
  const { t } = useTranslation();
  const [isAsking, setAsking] = useState(false);
  if (!isAsking) {
    return (
      <button type="button" className="danger" aria-label={name ? `${label} ${name}` : undefined} disabled={isPending} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <div role="group" aria-label={question} className="confirm">
      <p>{question}</p>
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={isPending}
          onClick={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          {t('common.confirm')}
        </button>
        <button type="button" className="secondary" onClick={() => setAsking(false)}>
          {t('common.cancel')}
        </button>
      </div>
    </div>
  );
}
