/**
 * Staff: reconciliation with the operators — runs, cases (by kind and status) with their
 * evidence, and a case's resolution. Reads for ADMIN and SUPPORT; running and resolving are
 * ADMIN's (the API refuses SUPPORT).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiBody, ApiData, ApiQuery } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type ReconciliationCaseQuery = ApiQuery<'/api/v1/admin/reconciliation/cases'>;
export type ReconciliationCasePage = ApiData<'/api/v1/admin/reconciliation/cases'>;
export type ReconciliationCase = ReconciliationCasePage['content'][number];
export type ReconciliationRunPage = ApiData<'/api/v1/admin/reconciliation/runs'>;
export type ReconciliationRun = ReconciliationRunPage['content'][number];
export type CaseKind = ReconciliationCase['kind'];
export type ResolutionBody = ApiBody<'/api/v1/admin/reconciliation/cases/{id}/resolution', 'post'>;
export type RunBody = ApiBody<'/api/v1/admin/reconciliation/runs', 'post'>;

export const adminReconciliationQueryKeys = {
  ...queryKeysFactory<'admin-reconciliation', ReconciliationCaseQuery>('admin-reconciliation'),
  runs: () => ['admin-reconciliation', 'runs'] as const,
};

/** A page of cases; the previous page stays shown while the next one loads. */
export function useReconciliationCases(query: ReconciliationCaseQuery, options?: QueryHookOptions<ReconciliationCasePage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: adminReconciliationQueryKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/admin/reconciliation/cases', { params: { query } })),
  });
}

/** The latest runs (newest first). */
export function useReconciliationRuns(options?: QueryHookOptions<ReconciliationRunPage>) {
  return useQuery({ ...options, queryKey: adminReconciliationQueryKeys.runs(), queryFn: () => unwrap(api.GET('/api/v1/admin/reconciliation/runs', { params: { query: { size: 10 } } })) });
}

/** Runs a reconciliation (ADMIN). */
export function useRunReconciliation(options?: MutationHookOptions<ReconciliationRun, RunBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/admin/reconciliation/runs', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminReconciliationQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Resolves case `id` (the variable's) with an action and a note (ADMIN). */
export function useResolveCase(options?: MutationHookOptions<ReconciliationCase, { id: string } & ResolutionBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ id, ...body }) => unwrap(api.POST('/api/v1/admin/reconciliation/cases/{id}/resolution', { params: { path: { id } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [adminReconciliationQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}
