/** The web app's committed API types are those of the server's current /openapi.json. */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypesSource } from '../../web/scripts/api-types.ts';

it('web/src/api/schema.d.ts is current (else run `npm run web:api`)', { timeout: 120_000 }, async () => {
  expect(readFileSync(API_TYPES_FILE, 'utf8') === (await apiTypesSource())).toBe(true);
});
