/**
 * My applications: the list, one application, creating (its webhook secret shown once),
 * editing and deleting one, and its money settings (what a late success does).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, expectNoContent, unwrap } from '../../api/client';
import type { ApiBody, ApiData } from '../../api/types';
import { invalidate, queryKeysFactory, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type Application = ApiData<'/api/v1/merchants/apps/{id}'>;
export type ApplicationItem = ApiData<'/api/v1/merchants/apps'>[number];
export type CreatedApplication = ApiData<'/api/v1/merchants/apps', 'post'>;
export type CreateApplicationBody = ApiBody<'/api/v1/merchants/apps', 'post'>;
export type UpdateApplicationBody = ApiBody<'/api/v1/merchants/apps/{id}', 'patch'>;
export type MoneySettings = ApiData<'/api/v1/merchants/apps/{appId}/money-settings'>;
export type MoneySettingsBody = ApiBody<'/api/v1/merchants/apps/{appId}/money-settings', 'put'>;
export type LateSuccessPolicy = MoneySettingsBody['lateSuccessPolicy'];

export const applicationsQueryKeys = {
  ...queryKeysFactory<'applications'>('applications'),
  moneySettings: (appId: string) => ['applications', 'money-settings', appId] as const,
};

/** My applications. */
export function useApplications(options?: QueryHookOptions<ApplicationItem[]>) {
  return useQuery({ ...options, queryKey: applicationsQueryKeys.list(), queryFn: () => unwrap(api.GET('/api/v1/merchants/apps')) });
}

/** One of my applications. */
export function useApplication(id: string, options?: QueryHookOptions<Application>) {
  return useQuery({
    ...options,
    queryKey: applicationsQueryKeys.detail(id),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{id}', { params: { path: { id } } })),
  });
}

/** Creates an application; the answer holds its webhook secret, shown once. */
export function useCreateApplication(options?: MutationHookOptions<CreatedApplication, CreateApplicationBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.POST('/api/v1/merchants/apps', { body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [applicationsQueryKeys.lists()]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Edits application `id` (every field but its currency). */
export function useUpdateApplication(id: string, options?: MutationHookOptions<Application, UpdateApplicationBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PATCH('/api/v1/merchants/apps/{id}', { params: { path: { id } }, body })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [applicationsQueryKeys.lists(), applicationsQueryKeys.detail(id)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Deletes application `id`: its detail is forgotten, the list read again. */
export function useDeleteApplication(id: string, options?: MutationHookOptions<void, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => expectNoContent(api.DELETE('/api/v1/merchants/apps/{id}', { params: { path: { id } } })),
    onSuccess: async (...args) => {
      queryClient.removeQueries({ queryKey: applicationsQueryKeys.detail(id) });
      await invalidate(queryClient, [applicationsQueryKeys.lists()]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** The money settings of application `appId`. */
export function useMoneySettings(appId: string, options?: QueryHookOptions<MoneySettings>) {
  return useQuery({
    ...options,
    queryKey: applicationsQueryKeys.moneySettings(appId),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/money-settings', { params: { path: { appId } } })),
  });
}

/**
 * Saves the money settings of application `appId` (the variable: the late-success policy and,
 * when given, the automatic-approval amount of batches); the answer replaces the shown settings.
 */
export function useUpdateMoneySettings(appId: string, options?: MutationHookOptions<MoneySettings, MoneySettingsBody>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (body) => unwrap(api.PUT('/api/v1/merchants/apps/{appId}/money-settings', { params: { path: { appId } }, body })),
    onSuccess: async (...args) => {
      queryClient.setQueryData(applicationsQueryKeys.moneySettings(appId), args[0]);
      await options?.onSuccess?.(...args);
    },
  });
}
