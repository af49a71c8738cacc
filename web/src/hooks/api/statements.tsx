/**
 * The merchant's statements: a short range read at once (JSON, or CSV to download), longer ones
 * requested, prepared in the background and downloaded when READY.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import type { TransactionExport } from './transactions';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type Statement = ApiData<'/api/v1/merchants/statement'>;
export type StatementRequest = ApiData<'/api/v1/merchants/statements'>[number];
/** A range of UTC days, both included (YYYY-MM-DD). */
export type StatementRange = ApiBody<'/api/v1/merchants/statements', 'post'>;
/** A downloaded statement file and its name (a CSV export, as the transactions' one). */
export type StatementFile = TransactionExport;

export const statementsQueryKeys = queryKeysFactory<'statements'>('statements');

/** The statement of a short range; disabled until `range` is given. */
export function useStatement(range: StatementRange | null, options?: QueryHookOptions<Statement>) {
  return useQuery({
    ...options,
    enabled: range !== null,
    queryKey: statementsQueryKeys.detail(range ? `${range.from}_${range.to}` : 'none'),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/statement', { params: { query: range! } })),
  });
}

/** The statements prepared in the background, newest first; polled while one is being prepared. */
export function useStatementRequests(options?: QueryHookOptions<StatementRequest[]>) {
  return useQuery({
    ...options,
    queryKey: statementsQueryKeys.list(),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/statements')),
    refetchInterval: (query) => (query.state.data?.some((s) => s.status === 'PENDING' || s.status === 'PREPARING') ? 3000 : false),
  });
}

/** Asks for the variable's range to be prepared in the background. */
export function useRequestStatement(options?: MutationHookOptions<StatementRequest, StatementRange>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/statements', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [statementsQueryKeys.lists()]);
      await options?.onSuccess?.(...args);
    },
  });
}

function fileOf(data: unknown, response: Response, fallback: string): StatementFile {
  if (!response.ok || !data) throw new ApiFailure(response.status, 'INTERNAL_SERVER_ERROR', null);
  const fileName = /filename="?([^";]+)/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
  return { file: data as Blob, fileName };
}

/** Downloads the CSV of a short range (the variable). */
export function useStatementCsv(options?: MutationHookOptions<StatementFile, StatementRange>) {
  return useMutation({
    ...options,
    mutationFn: async (query) => {
      const { data, response } = await api.GET('/api/v1/merchants/statement/csv', { params: { query }, parseAs: 'blob' });
      return fileOf(data, response, 'releve.csv');
    },
  });
}

/** Downloads the CSV of the prepared statement whose id is the variable. */
export function useDownloadStatement(options?: MutationHookOptions<StatementFile, string>) {
  return useMutation({
    ...options,
    mutationFn: async (id) => {
      const { data, response } = await api.GET('/api/v1/merchants/statements/{id}/csv', { params: { path: { id } }, parseAs: 'blob' });
      return fileOf(data, response, 'releve.csv');
    },
  });
}
