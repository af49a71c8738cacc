/**
 * `/openapi.json` generates good clients: Redocly's recommended ruleset finds no error in it, every
 * operation has a unique operationId and a security requirement, every success response a
 * description, the merchant API's request examples are accepted by a real Kolo (sandbox), and a
 * request refused for its credential gets a status and code its operation documents.
 * (Each example is also parsed with its route's zod schema when the document is built:
 * http/schemas/openapi-document.ts.)
 */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiTransform } from '../../src/http/schemas/openapi-document.ts';
import { version } from '../../src/version.ts';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { chargeTo } from '../helpers/webhooks.ts';
import { createDashboardAccount, createStaffAccount } from '../helpers/dashboard.ts';

type Operation = {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { description: string; content?: Record<string, { example?: unknown; schema?: { properties?: { code?: { enum?: string[] } } } }> }>;
};
type Document = { info: { version: string }; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

let h: Harness;
let t: Tenant;
let document: Document;
const operations: Array<{ method: string; path: string; operation: Operation }> = [];

beforeAll(async () => {
  h = await startHarness();
  t = await h.createTenant();
  const response = await h.request('GET', '/openapi.json');
  expect(response.status).toBe(200);
  document = response.json as Document;
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) operations.push({ method: method.toUpperCase(), path, operation });
  }
});
afterAll(async () => {
  await h?.close();
});

describe('the OpenAPI document', () => {
  it('has no error under Redocly’s recommended ruleset', { timeout: 60_000 }, async () => {
    // The recommended ruleset, with an example that fails its schema and a missing or repeated
    // operationId counted as errors (warnings there).
    const config = await createConfig({
      extends: ['recommended'],
      rules: { 'no-invalid-media-type-examples': 'error', 'operation-operationId': 'error', 'operation-operationId-unique': 'error' },
    });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it('carries the package version and both security schemes', () => {
    expect(document.info.version).toBe(version);
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiKey', 'bearerAuth']);
  });

  it('gives every operation a unique camelCase operationId, a security requirement and described answers', () => {
    expect(operations.length).toBeGreaterThan(100);
    const ids = operations.map((o) => o.operation.operationId);
    for (const { method, path, operation } of operations) {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(Array.isArray(operation.security), `${method} ${path} security`).toBe(true);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${method} ${path} ${status}`).not.toBe('Default Response');
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    const byId = new Map(operations.map((o) => [o.operation.operationId, o]));
    expect(byId.get('createCharge')).toMatchObject({ method: 'POST', path: '/api/v1/pay-in/charge' });
    expect(byId.get('getPayOutStatus')).toMatchObject({ method: 'GET', path: '/api/v1/pay-out/check_status/{reference}' });
    expect(byId.get('login')?.operation.security).toEqual([]);
    expect(byId.get('getHealth')?.operation.security).toEqual([]);
    expect(byId.get('createCheckout')?.operation.security).toEqual([{ apiKey: [] }]);
  });

  it('shows an example on every JSON request body and every success response with a body', () => {
    for (const { method, path, operation } of operations) {
      const body = operation.requestBody?.content['application/json'];
      if (body) expect(body.example, `${method} ${path} body`).toBeDefined();
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('2') || status === '204') continue;
        const media = Object.values(response.content ?? {})[0];
        expect(media?.example, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it('documents the credential failures each operation answers', async () => {
    for (const { method, path, operation } of operations) {
      const security = operation.security ?? [];
      if (security.length === 0) continue;
      const url = path.replace(/\{[^}]+\}/g, (name) => (name === '{reference}' ? 'PI-000000000000' : '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b'));
      const answer = await h.request(method, url, { headers: { authorization: 'Bearer a.b.c', 'x-api-key': 'sk_test_wrong' } });
      expect(answer.status, `${method} ${path}`).toBe(401);
      const codes = operation.responses['401']?.content?.['application/json']?.schema?.properties?.code?.enum;
      expect(codes, `${method} ${path} documents 401`).toContain(answer.json.code);
    }
  });
});

describe('the documented answers', () => {
  it('cover what each operation answers to a malformed path parameter or body, with valid credentials', { timeout: 120_000 }, async () => {
    const merchant = await createDashboardAccount(h);
    const admin = await createStaffAccount(h, { role: 'ADMIN' });
    for (const { method, path, operation } of operations) {
      const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
      const headers: Record<string, string> = {};
      if (schemes.includes('apiKey')) headers['x-api-key'] = t.key;
      if (schemes.includes('bearerAuth')) headers.authorization = `Bearer ${path.startsWith('/api/v1/admin') ? admin.accessToken : merchant.accessToken}`;
      if (operation.requestBody) headers['content-type'] = 'application/json';
      const url = path.replace(/\{[^}]+\}/g, 'pas-un-identifiant');
      const answer = await h.request(method, url, { headers, raw: operation.requestBody ? '{"amount": 5000,' : undefined });
      const documented = operation.responses[String(answer.status)];
      expect(documented, `${method} ${path} answered ${answer.status} ${answer.text.slice(0, 200)}`).toBeDefined();
      if (answer.status >= 400) {
        const codes = documented!.content?.['application/json']?.schema?.properties?.code?.enum;
        expect(codes, `${method} ${path} ${answer.status}`).toContain(answer.json.code);
      }
    }
  });
});

describe('the merchant API’s request examples', () => {
  const exampleOf = (path: string, method = 'post') => document.paths[path]![method]!.requestBody!.content['application/json']!.example as Record<string, unknown>;

  it('are accepted by a sandbox Kolo: checkout, charge and transfer answer 201', async () => {
    for (const path of ['/api/v1/pay-in/checkout', '/api/v1/pay-in/charge', '/api/v1/pay-out/transfer']) {
      const answer = await h.request('POST', path, { key: t.key, body: exampleOf(path) });
      expect(answer.status, `${path}: ${answer.text}`).toBe(201);
      expect(answer.json.data).toMatchObject({ status: 'PENDING', amount: exampleOf(path).amount });
    }
  });

  it('refund: the example refunds a charge that succeeded (its reference being that charge’s)', async () => {
    const reference = await chargeTo(h, t, 'SUCCESS');
    const refund = await h.request('POST', '/api/v1/pay-in/refund', { key: t.key, body: { ...exampleOf('/api/v1/pay-in/refund'), reference } });
    expect(refund.status, refund.text).toBe(201);
    expect(refund.json.data).toMatchObject({ paymentReference: reference, amount: exampleOf('/api/v1/pay-in/refund').amount });
  });
});

describe('building the document', () => {
  it('refuses an example its route’s own schema refuses', () => {
    const body = z.object({ amount: z.number().int().min(1) }).meta({ examples: [{ amount: 0 }] });
    const build = () => openApiTransform({ schema: { body, operationId: 'probe' }, url: '/probe', route: { method: 'POST' }, openapiObject: { openapi: '3.1.0' } } as never);
    expect(build).toThrow(/POST \/probe body fails its schema/);
    const fixed = z.object({ amount: z.number().int().min(1) }).meta({ examples: [{ amount: 1 }] });
    const built = openApiTransform({ schema: { body: fixed, operationId: 'probe' }, url: '/probe', route: { method: 'POST' }, openapiObject: { openapi: '3.1.0' } } as never);
    expect((built.schema as { body: { examples: unknown[] } }).body.examples).toEqual([{ amount: 1 }]);
  });
});
