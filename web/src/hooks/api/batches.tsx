/**
 * Batch pay-outs: my batches (a page, with their progress), one batch with its items and what I
 * may do to it, checking (dry run) and creating a batch from CSV text or rows, approving,
 * rejecting, cancelling, retrying its failed items, and its results file.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiFailure, api, unwrap } from '../../api/client';
import type { ApiBody, ApiData, ApiQuery } from '../../api/types';
import { balancesQueryKeys } from './balances';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

/** Which page of my batches: environment, page, size, optionally one application. */
export type BatchListQuery = ApiQuery<'/api/v1/merchants/batches'>;
/** A page of batches, newest first. */
export type BatchPage = ApiData<'/api/v1/merchants/batches'>;
/** One batch with its items and `allowedActions`. */
export type BatchDetail = ApiData<'/api/v1/merchants/batches/{id}'>;
/** One item of a batch. */
export type BatchItem = BatchDetail['items'][number];
/** A creation body: `items` or `csv`, `dryRun`, `environment`. */
export type BatchCreateBody = ApiBody<'/api/v1/merchants/apps/{appId}/batches', 'post'>;
/** A creation's answer: the totals, and the batch unless a dry run. */
export type BatchCreated = ApiData<'/api/v1/merchants/apps/{appId}/batches', 'post'>;
/** A decision on a batch. */
export type BatchDecision = 'approve' | 'reject' | 'cancel';
/** A downloaded results file. */
export type BatchResultsFile = { file: Blob; fileName: string };

export const batchesQueryKeys = queryKeysFactory<'batches', BatchListQuery>('batches');

/** Whether a batch may still change: awaiting a decision, or being sent. */
export function isBatchOpen(status: string): boolean {
  return status === 'AWAITING_APPROVAL' || status === 'APPROVED' || status === 'PROCESSING';
}

/** How often an open batch is read again while on screen (ms), to follow its progress. */
const PROGRESS_POLL_MS = 2000;

/** A page of my batches; read again while one of them is being sent. */
export function useBatches(query: BatchListQuery, options?: QueryHookOptions<BatchPage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.content.some((b) => b.status === 'APPROVED' || b.status === 'PROCESSING') ? PROGRESS_POLL_MS : false),
    ...options,
    queryKey: batchesQueryKeys.list(query),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/batches', { params: { query } })),
  });
}

/** One batch; read again while it is being sent. */
export function useBatch(id: string, options?: QueryHookOptions<BatchDetail>) {
  return useQuery({
    refetchInterval: (q) => (q.state.data?.status === 'APPROVED' || q.state.data?.status === 'PROCESSING' ? PROGRESS_POLL_MS : false),
    ...options,
    queryKey: batchesQueryKeys.detail(id),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/batches/{id}', { params: { path: { id } } })),
  });
}

/**
 * Checks (`dryRun: true`) or creates a batch in application `appId`; a creation is sent with the
 * idempotency key, one per checked form, so a double click creates one batch.
 */
export function useCreateBatch(options?: MutationHookOptions<BatchCreated, { appId: string; idempotencyKey: string; body: BatchCreateBody }>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: ({ appId, idempotencyKey, body }) =>
      unwrap(api.POST('/api/v1/merchants/apps/{appId}/batches', { params: { path: { appId } }, headers: body.dryRun ? {} : { 'Idempotency-Key': idempotencyKey }, body })),
    onSuccess: async (...args) => {
      if (!args[0].dryRun) await invalidate(queryClient, [batchesQueryKeys.lists()]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Approves, rejects or cancels batch `id`; then the batch, the list and the balances are read again. */
export function useDecideBatch(id: string, options?: MutationHookOptions<ApiData<'/api/v1/merchants/batches/{id}/approve', 'post'>, BatchDecision>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (decision) => {
      const params = { params: { path: { id } } };
      if (decision === 'approve') return unwrap(api.POST('/api/v1/merchants/batches/{id}/approve', params));
      if (decision === 'reject') return unwrap(api.POST('/api/v1/merchants/batches/{id}/reject', params));
      return unwrap(api.POST('/api/v1/merchants/batches/{id}/cancel', params));
    },
    onSuccess: async (...args) => {
      await invalidate(queryClient, [batchesQueryKeys.all, balancesQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Puts the failed items of batch `id` in a new batch awaiting approval (answered). */
export function useRetryBatch(id: string, options?: MutationHookOptions<ApiData<'/api/v1/merchants/batches/{id}/retry', 'post'>, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => unwrap(api.POST('/api/v1/merchants/batches/{id}/retry', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [batchesQueryKeys.all]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Downloads the results file of batch `id`. */
export function useBatchResults(id: string, options?: MutationHookOptions<BatchResultsFile, void>) {
  return useMutation({
    ...options,
    mutationFn: async () => {
      const { data, response } = await api.GET('/api/v1/merchants/batches/{id}/results.csv', { params: { path: { id } }, parseAs: 'blob' });
      if (!response.ok || !data) throw new ApiFailure(response.status, 'INTERNAL_SERVER_ERROR', null);
      const fileName = /filename="?([^";]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? `lot-${id}.csv`;
      return { file: data as unknown as Blob, fileName };
    },
  });
}
