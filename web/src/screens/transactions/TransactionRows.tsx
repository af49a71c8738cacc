/** A list of transactions, each a link to its detail. */
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../format';
import type { TransactionItem } from '../../hooks/api/transactions';
import { Money, StatusBadge } from '../../ui';

export function TransactionRows({ items }: { items: TransactionItem[] }) {
  const { t, i18n } = useTranslation();
  return (
    <ul className="rows">
      {items.map((tx) => (
        <li key={tx.reference}>
          <Link to={`/transactions/${tx.reference}`} className="row">
            <span className="row-main">
              <span className="ref">{tx.reference}</span>
              <span className="muted">
                {tx.direction === 'PAY_IN' ? t('tx.payIn') : t('tx.payOut')} · {tx.appName}
                {tx.merchantReference ? ` · ${tx.merchantReference}` : ''}
              </span>
              <span className="muted">{formatDateTime(tx.createdAt, i18n.language)}</span>
            </span>
            <span className="row-side">
              <Money amount={tx.direction === 'PAY_OUT' ? -tx.amount : tx.amount} currency={tx.currency} />
              <StatusBadge status={tx.status} />
              {tx.queuedForFloat && <span className="badge badge-queued">{t('tx.queued')}</span>}
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}
