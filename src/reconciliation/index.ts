/**
 * Reconciliation: Kolo's books proven against the operators'. A run compares, for one LIVE rail
 * and period, the operator's records (its API or its imported statement), the ledger (the rail's
 * operator float and the transactions) and what merchants were told; every mismatch opens one
 * case, which staff resolve with an action that posts what it says.
 */
export { CASE_KINDS, MATCH_WINDOW_MS, MERCHANT_TOLD_GRACE_MS, matchRecords, type CaseDraft, type CaseEvidence, type CaseKind, type MatchResult } from './match-records.ts';
export { hasOperatorApi, operatorRecordsFor, type RecordSource } from './operator-view.ts';
export { openDrift, runReconciliation, RUN_PERIOD_MAX_MS, type RunSummary } from './run-reconciliation.ts';
export { RESOLUTION_ACTIONS, resolveCase, type CaseRow, type ResolutionAction } from './resolve-case.ts';
export { getCase, hasOpenCase, pageCases, pageRuns, type RunRow } from './list-reconciliation.ts';
