/**
 * An application's webhooks: its settings (URL, secret prefix), a new or rotated signing secret
 * (shown once), a test event, and the delivery log with its replay.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ApiData, ApiQuery } from '../../api/types';
import { invalidate, type MutationHookOptions, type QueryHookOptions } from './query-keys';

export type WebhookSettings = ApiData<'/api/v1/merchants/apps/{appId}/webhook'>;
/** Filters and page of the delivery log (`reference`: one transaction's deliveries). */
export type DeliveryQuery = ApiQuery<'/api/v1/merchants/apps/{appId}/webhook/deliveries'>;
export type DeliveryPage = ApiData<'/api/v1/merchants/apps/{appId}/webhook/deliveries'>;
export type ReplayedDelivery = ApiData<'/api/v1/merchants/apps/{appId}/webhook/deliveries/{deliveryId}/replay', 'post'>;
export type WebhookSecret = ApiData<'/api/v1/merchants/apps/{appId}/webhook/secret', 'post'>;
export type WebhookTest = ApiData<'/api/v1/merchants/apps/{appId}/webhook/test', 'post'>;

export const webhooksQueryKeys = {
  all: ['webhooks'] as const,
  settings: (appId: string) => [...webhooksQueryKeys.all, 'settings', appId] as const,
  /** Every page and filter of one application's delivery log. */
  deliveries: (appId: string) => [...webhooksQueryKeys.all, 'deliveries', appId] as const,
  deliveryList: (appId: string, query: DeliveryQuery) => [...webhooksQueryKeys.deliveries(appId), { query }] as const,
};

/** The webhook settings of application `appId`. */
export function useWebhookSettings(appId: string, options?: QueryHookOptions<WebhookSettings>) {
  return useQuery({
    ...options,
    queryKey: webhooksQueryKeys.settings(appId),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/webhook', { params: { path: { appId } } })),
  });
}

/** A page of the delivery log of application `appId`; the previous page stays shown while the next one loads. */
export function useWebhookDeliveries(appId: string, query: DeliveryQuery, options?: QueryHookOptions<DeliveryPage>) {
  return useQuery({
    placeholderData: keepPreviousData,
    ...options,
    queryKey: webhooksQueryKeys.deliveryList(appId, query),
    queryFn: () => unwrap(api.GET('/api/v1/merchants/apps/{appId}/webhook/deliveries', { params: { path: { appId }, query } })),
  });
}

/** Sends a delivery of application `appId` again (the variable is the delivery's id). */
export function useReplayDelivery(appId: string, options?: MutationHookOptions<ReplayedDelivery, string>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: (deliveryId) => unwrap(api.POST('/api/v1/merchants/apps/{appId}/webhook/deliveries/{deliveryId}/replay', { params: { path: { appId, deliveryId } } })),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [webhooksQueryKeys.deliveries(appId)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Creates the signing secret of application `appId`, or rotates it when it has one (the variable). */
export function useIssueWebhookSecret(appId: string, options?: MutationHookOptions<WebhookSecret, { hasSecret: boolean }>) {
  const queryClient = useQueryClient();
  const path = { params: { path: { appId } } };
  return useMutation({
    ...options,
    mutationFn: ({ hasSecret }) =>
      unwrap(hasSecret ? api.POST('/api/v1/merchants/apps/{appId}/webhook/rotate', path) : api.POST('/api/v1/merchants/apps/{appId}/webhook/secret', path)),
    onSuccess: async (...args) => {
      await invalidate(queryClient, [webhooksQueryKeys.settings(appId)]);
      await options?.onSuccess?.(...args);
    },
  });
}

/** Sends a test event to application `appId`'s URL; delivered or not, the log has a new line. */
export function useTestWebhook(appId: string, options?: MutationHookOptions<WebhookTest, void>) {
  const queryClient = useQueryClient();
  return useMutation({
    ...options,
    mutationFn: () => unwrap(api.POST('/api/v1/merchants/apps/{appId}/webhook/test', { params: { path: { appId } }, body: {} })),
    onSettled: async (...args) => {
      await invalidate(queryClient, [webhooksQueryKeys.deliveries(appId)]);
      await options?.onSettled?.(...args);
    },
  });
}
