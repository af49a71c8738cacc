/** Every protected dashboard route runs the shared security suite. */
import { describeDashboardSecurity, type ProtectedRoute } from '../helpers/security-suite.ts';

const key = { name: 'Clé', environment: 'TEST' };
const provider = { code: 'NEW_RAIL_CM', name: 'Rail', country: 'CM', currency: 'XAF', minAmount: 1, maxAmount: 10 };

const routes: ProtectedRoute[] = [
  { method: 'GET', path: '/api/v1/merchants/me', scope: 'ANY_ACCOUNT', write: false },
  { method: 'PATCH', path: '/api/v1/merchants/me', scope: 'ANY_ACCOUNT', write: false, body: { fullName: 'X' } },
  { method: 'PUT', path: '/api/v1/merchants/me/password', scope: 'ANY_ACCOUNT', write: false, body: { currentPassword: 'x', newPassword: 'yyyyyyyyyy' } },
  { method: 'GET', path: '/api/v1/merchants/apps', scope: 'ANY_ACCOUNT', write: false },
  { method: 'POST', path: '/api/v1/merchants/apps', scope: 'ANY_ACCOUNT', write: true, body: { name: 'Nouvelle', currency: 'XAF' } },
  { method: 'GET', path: '/api/v1/merchants/apps/{appId}', scope: 'OWN_APP', write: false },
  { method: 'PATCH', path: '/api/v1/merchants/apps/{appId}', scope: 'OWN_APP', write: true, body: { name: 'Renommée' } },
  { method: 'DELETE', path: '/api/v1/merchants/apps/{appId}', scope: 'OWN_APP', write: true },
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/api-keys', scope: 'OWN_APP', write: true, body: key },
  { method: 'GET', path: '/api/v1/merchants/apps/{appId}/api-keys', scope: 'OWN_APP', write: false },
  { method: 'GET', path: '/api/v1/merchants/apps/{appId}/api-keys/active', scope: 'OWN_APP', write: false },
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/api-keys/rotate', scope: 'OWN_APP', write: true, body: key },
  { method: 'DELETE', path: '/api/v1/merchants/apps/{appId}/api-keys', scope: 'OWN_APP', write: true },
  // Webhook configuration (src/http/routes/dashboard-webhooks.ts).
  { method: 'GET', path: '/api/v1/merchants/apps/{appId}/webhook', scope: 'OWN_APP', write: false },
  { method: 'PATCH', path: '/api/v1/merchants/apps/{appId}/webhook', scope: 'OWN_APP', write: true, body: { webhookUrl: null } },
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/webhook/secret', scope: 'OWN_APP', write: true, body: {} },
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/webhook/rotate', scope: 'OWN_APP', write: true, body: {} },
  { method: 'DELETE', path: '/api/v1/merchants/apps/{appId}/webhook/secret', scope: 'OWN_APP', write: true },
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/webhook/test', scope: 'OWN_APP', write: true, body: {} },
  { method: 'GET', path: '/api/v1/merchants/apps/{appId}/webhook/deliveries', scope: 'OWN_APP', write: false },
  {
    method: 'POST',
    path: '/api/v1/merchants/apps/{appId}/webhook/deliveries/00000000-0000-4000-8000-000000000000/replay',
    scope: 'OWN_APP',
    write: true,
    body: {},
  },
  { method: 'GET', path: '/api/v1/admin/merchants', scope: 'STAFF_READ', write: false },
  { method: 'GET', path: '/api/v1/admin/merchants/{id}', scope: 'STAFF_READ', write: false },
  { method: 'GET', path: '/api/v1/admin/merchants/{id}/overview', scope: 'STAFF_READ', write: false },
  { method: 'PATCH', path: '/api/v1/admin/merchants/{id}/status', scope: 'ADMIN', write: true, body: { status: 'SUSPENDED' } },
  { method: 'PATCH', path: '/api/v1/admin/merchants/{id}/kyc', scope: 'ADMIN', write: true, body: { kycLevel: 'BASIC' } },
  { method: 'GET', path: '/api/v1/admin/staff', scope: 'ADMIN', write: false },
  {
    method: 'POST',
    path: '/api/v1/admin/staff',
    scope: 'ADMIN',
    write: true,
    body: { fullName: 'S', email: 's@example.test', password: 'mot-de-passe-long', role: 'SUPPORT' },
  },
  { method: 'PATCH', path: '/api/v1/admin/staff/{id}/status', scope: 'ADMIN', write: true, body: { status: 'SUSPENDED' } },
  { method: 'DELETE', path: '/api/v1/admin/staff/{id}', scope: 'ADMIN', write: true },
  { method: 'GET', path: '/api/v1/admin/providers', scope: 'STAFF_READ', write: false },
  { method: 'POST', path: '/api/v1/admin/providers', scope: 'ADMIN', write: true, body: provider },
  { method: 'PUT', path: '/api/v1/admin/providers/{id}', scope: 'ADMIN', write: true, body: provider },
  { method: 'PATCH', path: '/api/v1/admin/providers/{id}/toggle', scope: 'ADMIN', write: true },
  { method: 'GET', path: '/api/v1/admin/audit-log', scope: 'ADMIN', write: false },
];

describeDashboardSecurity('dashboard security suite', routes);
