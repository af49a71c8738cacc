/**
 * The fund collection routes run the shared dashboard security suite: no token, malformed or forged
 * tokens, API keys, expired tokens, a suspended account, another merchant's application (404), and
 * SUPPORT refused on writes. Another merchant's collection ids and malformed ids are covered in
 * fund-collections.test.ts (404 COLLECTION_NOT_FOUND, 400).
 */
import { describeDashboardSecurity, type ProtectedRoute } from '../helpers/security-suite.ts';

const BASE = '/api/v1/merchants/fund-collections';

const routes: ProtectedRoute[] = [
  { method: 'POST', path: '/api/v1/merchants/apps/{appId}/fund-collections', scope: 'OWN_APP', write: true, body: { title: 'Collecte' } },
  { method: 'GET', path: BASE, scope: 'ANY_ACCOUNT', write: false },
  { method: 'GET', path: `${BASE}/{id}`, scope: 'ANY_ACCOUNT', write: false },
  { method: 'PATCH', path: `${BASE}/{id}`, scope: 'ANY_ACCOUNT', write: true, body: { title: 'Renommée' } },
  { method: 'DELETE', path: `${BASE}/{id}`, scope: 'ANY_ACCOUNT', write: true },
  { method: 'PATCH', path: `${BASE}/{id}/close`, scope: 'ANY_ACCOUNT', write: true },
  { method: 'PATCH', path: `${BASE}/{id}/reopen`, scope: 'ANY_ACCOUNT', write: true, body: {} },
];

describeDashboardSecurity('fund collections security suite', routes);
