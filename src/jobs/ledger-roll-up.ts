/**
 * The ledger's roll-up loop: every second, folds the balance deltas postings appended into the
 * accounts' stored balances (ledger/roll-up-balances.ts), so that no account accumulates more than
 * about a second's worth of delta rows. Runs on every instance that runs background work; two
 * instances never fold the same account at once (its row is claimed with SKIP LOCKED).
 */
import { rollUpBalances } from '../ledger/roll-up-balances.ts';
import type { Services } from '../services.ts';
import { startLoop, type Loop } from './status-poller.ts';

/** Interval between roll-ups, milliseconds. */
const ROLL_UP_INTERVAL_MS = 1000;

/** Starts the roll-up loop; a run that found a full batch goes again at once. */
export function startLedgerRollUp(services: Pick<Services, 'db' | 'log'>): Loop {
  return startLoop('ledger-roll-up', ROLL_UP_INTERVAL_MS, () => rollUpBalances(services.db), services.log);
}
