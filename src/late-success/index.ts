/**
 * Money an operator moves after Kolo closed its transaction without a definitive answer: the
 * record of a late success (a pay-in kept or refunded, a checkout paid once), the settlement of
 * a held pay-out's reservation, and the watch that asks the operators again.
 */
export {
  heldPayOutAnswer,
  isAmbiguousFailure,
  recordLateSuccess,
  reopenAttemptWatch,
  reopenLateWatch,
  settleHeldPayOut,
  watchLateSuccesses,
  type HeldPayOutAnswer,
  type LateSuccessDecision,
  type LateSuccessReport,
} from './late-success.ts';
