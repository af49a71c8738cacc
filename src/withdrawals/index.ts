/**
 * Withdrawals: a merchant's withdrawal accounts, manual withdrawals of the available balance to
 * one of them, and automatic withdrawals on a schedule (`runAutomaticWithdrawals`, run by the
 * background loop).
 */
export {
  WITHDRAWAL_MODES,
  WITHDRAWAL_PERIODS,
  addWithdrawalAccount,
  deleteWithdrawalAccount,
  getWithdrawalConfig,
  listWithdrawalAccounts,
  periodKey,
  putWithdrawalConfig,
  runAutomaticWithdrawals,
  setDefaultWithdrawalAccount,
  sweepAmount,
  withdraw,
  type WithdrawalAccountRow,
  type WithdrawalConfigView,
} from './withdrawals.ts';
