/** The demo seed's merchant logs in to the dashboard with the password the banner prints once. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { demoBanner, seedDemo } from '../../src/accounts/demo-seed.ts';
import { startHarness, type Harness } from '../harness.ts';
import { DASHBOARD_TEST_ENV } from '../helpers/dashboard.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV });
});
afterAll(async () => h?.close());

it('prints the e-mail and a generated password that log in; a second seed does nothing', async () => {
  const seed = (await seedDemo(h.services))!;
  expect(seed.merchantPassword).toMatch(/^[0-9a-f]{24}$/);
  const banner = demoBanner(seed, h.baseUrl);
  expect(banner).toContain(`${h.baseUrl}/app`);
  expect(banner).toContain(`e-mail : ${seed.merchantEmail}`);
  expect(banner).toContain(`mot de passe : ${seed.merchantPassword}`);
  const login = await h.request('POST', '/api/v1/auth/login', { body: { email: seed.merchantEmail, password: seed.merchantPassword } });
  expect(login.status).toBe(200);
  expect(login.json.data.user.role).toBe('MERCHANT');
  expect(await seedDemo(h.services)).toBeNull();
});
