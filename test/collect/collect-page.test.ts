/**
 * The public fund collection page `/collect/{slug}` and its JSON API: the page (French, security
 * headers, under 50 KB, escaping), payments through the HTML form without JavaScript and through
 * `POST /api/v1/public/collect/confirm`, each a FUND_COLLECTION pay-in with an FC- reference
 * settled by the sandbox rail and credited through the ledger; CSRF, refusals of closed, expired
 * and deleted collections, and rate limits per IP.
 */
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from '../harness.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { transactionEvents, transactions } from '../../src/db/schema.ts';
import { fundCollections } from '../../src/db/schema-collections.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { formClient } from '../helpers/checkout.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';
import { expectLedgerBalanced, tenantBalances } from '../helpers/ledger.ts';
import { transaction } from '../../src/db/client.ts';

let h: Harness;
let merchant: DashboardAccount;
let t: Tenant;

const CONFIRM = '/api/v1/public/collect/confirm';

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, SANDBOX_DELAY_MS: '0', SANDBOX_OPENING_BALANCE: '0' });
  merchant = await createDashboardAccount(h);
  const app = await createApplication(h.services, { merchantId: merchant.accountId, name: 'Association Ndolo', currency: 'XAF', themeColor: '#0a6e4f' });
  const key = await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
  t = { merchantId: merchant.accountId, applicationId: app.id, key: key.plainTextKey, keyId: key.id };
});
afterAll(async () => h?.close());
afterEach(async () => expectLedgerBalanced(h.services.db));

/** Creates a collection through the dashboard API; returns its view. */
async function collection(body: Record<string, unknown> = {}) {
  const response = await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/apps/${t.applicationId}/fund-collections`, {
    body: { title: 'Cotisation de décembre', description: 'Pour la fête du quartier', ...body },
  });
  return expectSuccess(response, 201);
}

const dashboard = (method: string, path: string, body?: unknown) => asAccount(h, merchant.accessToken, method, path, body === undefined ? {} : { body });

async function transactionOf(reference: string) {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  return row!;
}

describe('the page', () => {
  it('shows the collection in French with strict security headers, and weighs under 50 KB with its assets', async () => {
    const c = await collection({ isAmountFixed: true, amount: 5000, coverImageUrl: 'https://img.example.com/fete.jpg', expiresAt: '2026-12-31T23:59:00' });
    const b = formClient(h);
    const page = await b.get(`/collect/${c.slug}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html lang="fr">');
    expect(page.html).toContain('Association Ndolo');
    expect(page.html).toContain('Cotisation de décembre');
    expect(page.html).toContain('Pour la fête du quartier');
    expect(page.html).toContain('5 000 FCFA');
    expect(page.html).toContain('Payer 5 000 FCFA');
    expect(page.html).toMatch(/Collecte ouverte jusqu[^ ]+au 31 décembre 2026/);
    expect(page.html).toContain('src="https://img.example.com/fete.jpg"');
    expect(page.html).toContain('Mode test');
    expect(page.html).toContain('MTN Mobile Money Cameroun');
    expect(page.html).not.toContain('id="amount"');
    expect(page.html).not.toContain('payerEmail');
    expect(page.html).not.toContain(t.key);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("form-action 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const cookie = page.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^kolo_collect=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const bytes = async (path: string) => (await fetch(`${h.baseUrl}${path}`).then((r) => r.arrayBuffer())).byteLength;
    const total = (await bytes(`/collect/${c.slug}`)) + (await bytes('/checkout/assets/checkout.css')) + (await bytes('/collect/assets/collect.js'));
    expect(total).toBeGreaterThan(2000);
    expect(total).toBeLessThan(50 * 1024);
  });

  it('offers a free amount (pre-filled with the suggestion) and the optional name and e-mail fields', async () => {
    const c = await collection({ amount: 2500, collectCustomerInfo: true });
    const page = await formClient(h).get(`/collect/${c.slug}`);
    expect(page.html).toContain('<label for="amount">Montant à donner (FCFA)</label>');
    expect(page.html).toMatch(/id="amount"[^>]*value="2500"/);
    expect(page.html).toContain('Vos coordonnées (facultatif)');
    expect(page.html).toContain('name="payerName"');
    expect(page.html).toContain('name="payerEmail"');
  });

  it('escapes what the merchant wrote', async () => {
    const c = await collection({ title: '<script>alert(1)</script>', description: '"><img src=x onerror=alert(2)>' });
    const page = await formClient(h).get(`/collect/${c.slug}`);
    expect(page.html).not.toContain('<script>alert');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('answers 404 in French for an unknown or malformed slug', async () => {
    for (const path of ['/collect/inconnue-00000000', '/collect/NOT_A_SLUG!']) {
      const response = await h.request('GET', path);
      expect(response.status).toBe(404);
      expect(response.text).toContain('Collecte introuvable');
    }
  });
});

describe('paying without JavaScript (HTML form)', () => {
  it('pays a free amount on the sandbox rail to SUCCESS: FC- reference, FUND_COLLECTION, ledger credit of the net amount, visible to the merchant', async () => {
    const c = await collection({ collectCustomerInfo: true, thankYouMessage: 'Merci pour votre soutien !' });
    const before = await tenantBalances(h, t);
    const b = formClient(h);
    const page = await b.get(`/collect/${c.slug}`);
    const posted = await b.post(`/collect/${c.slug}/pay`, {
      _csrf: page.csrf!,
      amount: '5 000',
      paymentMethod: 'MTN_MOMO_CM',
      payerAccount: '6 77 12 34 56',
      payerName: 'Awa Ndiaye',
      payerEmail: 'awa@example.com',
    });
    expect(posted.status).toBe(303);
    const match = /^\/collect\/[a-z0-9-]+\/paiement\/(FC-[0-9A-F]{12})\?t=[A-Za-z0-9_-]{22}$/.exec(posted.location!);
    expect(match, posted.location!).not.toBeNull();
    const reference = match![1]!;
    const waiting = await b.get(posted.location!);
    expect(waiting.status).toBe(200);
    expect(waiting.html).toContain('Confirmez le paiement sur votre téléphone');
    expect(waiting.html).toContain('+237 677 12 34 56');
    expect(waiting.html).toContain('<noscript><meta http-equiv="refresh" content="5"></noscript>');
    h.clock.advance(2500);
    const done = await b.get(posted.location!);
    expect(done.html).toContain('Merci ! Votre paiement a bien été reçu.');
    expect(done.html).toContain('Merci pour votre soutien !');
    expect(done.html).toContain(reference);

    const row = await transactionOf(reference);
    expect(row).toMatchObject({
      type: 'FUND_COLLECTION',
      direction: 'PAY_IN',
      status: 'SUCCESS',
      amount: 5000,
      applicationId: t.applicationId,
      environment: 'TEST',
      payerAccount: '237677123456',
      payerName: 'Awa Ndiaye',
      payerEmail: 'awa@example.com',
      merchantReference: c.slug,
      description: c.title,
    });
    expect(row.feeAmount).toBe(75); // 1.5 % on MTN_MOMO_CM
    const after = await tenantBalances(h, t);
    expect(after.available - before.available).toBe(5000 - 75);
    // The merchant sees it through the merchant API like any pay-in.
    const status = expectSuccess(await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: t.key }), 200);
    expect(status).toMatchObject({ reference, type: 'FUND_COLLECTION', status: 'SUCCESS', feeAmount: 75, netAmount: 4925 });
  });

  it('a fixed amount ignores any amount posted; a declined payment shows why and offers a retry', async () => {
    const c = await collection({ isAmountFixed: true, amount: 1500 });
    const b = formClient(h);
    const page = await b.get(`/collect/${c.slug}`);
    const posted = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '1', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677000100' });
    expect(posted.status).toBe(303);
    h.clock.advance(2500);
    const done = await b.get(posted.location!);
    expect(done.html).toContain("Le paiement n&#39;a pas abouti");
    expect(done.html).toContain('La demande de paiement a été refusée sur le téléphone.');
    expect(done.html).toContain(`href="/collect/${c.slug}"`);
    const reference = /(FC-[0-9A-F]{12})/.exec(posted.location!)![1]!;
    expect(await transactionOf(reference)).toMatchObject({ amount: 1500, status: 'FAILED', failureCode: 'REJECTED_BY_PAYER' });
  });

  it('shows field errors in French beside the fields, and starts nothing', async () => {
    const c = await collection({ collectCustomerInfo: true });
    const b = formClient(h);
    const page = await b.get(`/collect/${c.slug}`);
    const empty = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '', paymentMethod: 'MTN_MOMO_CM', payerAccount: '' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('Saisissez le montant que vous souhaitez donner.');
    expect(empty.html).toContain('Saisissez votre numéro de téléphone.');
    const wrong = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '699123456', payerEmail: 'pas-une-adresse' });
    expect(wrong.status).toBe(400);
    expect(wrong.html).toContain("Cette adresse e-mail n&#39;est pas valide.");
    const wrongOperator = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '699123456' });
    expect(wrongOperator.status).toBe(400);
    expect(wrongOperator.html).toContain('Ce numéro est un numéro Orange Money Cameroun, pas MTN Mobile Money Cameroun.');
    expect(wrongOperator.html).toMatch(/id="payerAccount"[^>]*value="699123456"/);
    const tooSmall = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '50', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.html).toContain('MTN Mobile Money Cameroun accepte les paiements à partir de 100 FCFA. Choisissez un autre montant ou un autre opérateur.');
    const rows = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toEqual([]);
  });

  it('refuses a post without a valid CSRF token (403, French), and starts nothing', async () => {
    const c = await collection();
    const b = formClient(h);
    const page = await b.get(`/collect/${c.slug}`);
    const fields = { amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' };
    const noToken = await b.post(`/collect/${c.slug}/pay`, fields);
    expect(noToken.status).toBe(403);
    expect(noToken.html).toContain('Formulaire expiré');
    // A token without the cookie it was made for (another browser, a cross-site post).
    const noCookie = await formClient(h).post(`/collect/${c.slug}/pay`, { ...fields, _csrf: page.csrf! });
    expect(noCookie.status).toBe(403);
    // The token of another collection's form.
    const otherCollection = await collection();
    const otherPage = await b.get(`/collect/${otherCollection.slug}`);
    expect((await b.post(`/collect/${c.slug}/pay`, { ...fields, _csrf: otherPage.csrf! })).status).toBe(403);
    const rows = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toEqual([]);
  });
});

describe('paying through POST /api/v1/public/collect/confirm (JSON)', () => {
  it('starts a FUND_COLLECTION pay-in; its status follows with the token only; SUCCESS credits the ledger', async () => {
    const c = await collection({ collectCustomerInfo: false });
    const before = await tenantBalances(h, t);
    const response = await h.request('POST', CONFIRM, {
      body: { slug: c.slug, amount: 10_000, paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '+237 699 12 34 56', payerName: 'Ignoré', payerEmail: 'ignore@example.com' },
    });
    const data = expectSuccess(response, 201);
    expect(data).toMatchObject({ status: 'PENDING', amount: 10_000, currency: 'XAF', paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699123456' });
    expect(data.reference).toMatch(/^FC-[0-9A-F]{12}$/);
    expect(data.statusUrl).toBe(`${h.baseUrl}/collect/${c.slug}/paiement/${data.reference}?t=${data.statusToken}`);
    const path = `/api/v1/public/collect/payments/${data.reference}`;
    expect(expectSuccess(await h.request('GET', `${path}?token=${data.statusToken}`), 200)).toEqual({
      reference: data.reference,
      status: 'PENDING',
      amount: 10_000,
      currency: 'XAF',
      failureCode: null,
    });
    expectError(await h.request('GET', path), 404, 'TRANSACTION_NOT_FOUND');
    expectError(await h.request('GET', `${path}?token=${'A'.repeat(22)}`), 404, 'TRANSACTION_NOT_FOUND');
    h.clock.advance(2500);
    expect(expectSuccess(await h.request('GET', `${path}?token=${data.statusToken}`), 200).status).toBe('SUCCESS');
    const row = await transactionOf(data.reference);
    // Without collectCustomerInfo, name and e-mail are not kept.
    expect(row).toMatchObject({ type: 'FUND_COLLECTION', payerName: null, payerEmail: null, merchantReference: c.slug });
    const events = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row.id));
    expect(events.map((e) => e.toStatus)).toContain('SUCCESS');
    const after = await tenantBalances(h, t);
    expect(after.available - before.available).toBe(10_000 - row.feeAmount!);
  });

  it('keeps the payer’s name and e-mail when the collection asks for them', async () => {
    const c = await collection({ collectCustomerInfo: true });
    const data = expectSuccess(
      await h.request('POST', CONFIRM, { body: { slug: c.slug, amount: 700, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456', payerName: 'Paul', payerEmail: 'paul@example.com' } }),
      201,
    );
    expect(await transactionOf(data.reference)).toMatchObject({ payerName: 'Paul', payerEmail: 'paul@example.com' });
  });

  it('error codes: COLLECTION_NOT_FOUND, PROVIDER_NOT_FOUND, VALIDATION_ERROR, AMOUNT_BELOW_MINIMUM, AMOUNT_ABOVE_MAXIMUM, 415 for a form post', async () => {
    const c = await collection();
    const body = { slug: c.slug, amount: 5000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' };
    expectError(await h.request('POST', CONFIRM, { body: { ...body, slug: 'inconnue-00000000' } }), 404, 'COLLECTION_NOT_FOUND');
    expectError(await h.request('POST', CONFIRM, { body: { ...body, paymentMethod: 'NOPE' } }), 404, 'PROVIDER_NOT_FOUND');
    expect(expectError(await h.request('POST', CONFIRM, { body: { ...body, amount: undefined } }), 400, 'VALIDATION_ERROR')).toHaveProperty('amount');
    expect(expectError(await h.request('POST', CONFIRM, { body: { ...body, payerAccount: '12' } }), 400, 'VALIDATION_ERROR')).toHaveProperty('payerAccount');
    expect(expectError(await h.request('POST', CONFIRM, { body: { ...body, slug: 'A B' } }), 400, 'VALIDATION_ERROR')).toHaveProperty('slug');
    expectError(await h.request('POST', CONFIRM, { body: { ...body, amount: 99 } }), 400, 'AMOUNT_BELOW_MINIMUM');
    expectError(await h.request('POST', CONFIRM, { body: { ...body, amount: 1_000_001 } }), 400, 'AMOUNT_ABOVE_MAXIMUM');
    const form = await h.request('POST', CONFIRM, {
      raw: new URLSearchParams({ slug: c.slug, amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const rows = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toEqual([]);
  });
});

describe('collections that no longer take payments', () => {
  it('a payment racing the close waits for it: none is accepted once the close is acknowledged', async () => {
    const c = await collection({ title: 'Course à la clôture' });
    const body = { slug: c.slug, amount: 700, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' };
    let payment: ReturnType<typeof h.request> | undefined;
    // The close's write, held open while a payment arrives (it has already read the collection
    // as ACTIVE on PostgreSQL: reads do not wait for writers).
    await transaction(h.services.db, async (tx) => {
      await tx.update(fundCollections).set({ status: 'CLOSED', updatedAt: h.clock.now() }).where(eq(fundCollections.id, c.id));
      payment = h.request('POST', CONFIRM, { body });
      await new Promise((resolve) => setTimeout(resolve, 400));
    });
    // The close is acknowledged (committed): the payment that raced it is refused, and nothing was written.
    expectError(await payment!, 410, 'COLLECTION_NOT_AVAILABLE');
    const written = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(written).toEqual([]);
  });

  it('closed, expired and deleted: the page says why (410, French) and confirm answers 410 COLLECTION_NOT_AVAILABLE', async () => {
    const closed = await collection({ title: 'Fermée' });
    expectSuccess(await dashboard('PATCH', `/api/v1/merchants/fund-collections/${closed.id}/close`), 200);
    const expiring = await collection({ title: 'Expirée', expiresAt: new Date(h.clock.now().getTime() + 60_000).toISOString() });
    const deleted = await collection({ title: 'Supprimée' });
    expect((await dashboard('DELETE', `/api/v1/merchants/fund-collections/${deleted.id}`)).status).toBe(204);
    // Open until its end, then refused.
    expect((await h.request('GET', `/collect/${expiring.slug}`)).status).toBe(200);
    h.clock.advance(60_000);
    const reasons: Record<string, string> = {
      [closed.slug]: 'Son organisateur l’a clôturée.',
      [expiring.slug]: 'Elle a pris fin : la date limite est passée.',
      [deleted.slug]: 'Elle a été supprimée par son organisateur.',
    };
    for (const [slug, reason] of Object.entries(reasons)) {
      const page = await h.request('GET', `/collect/${slug}`);
      expect(page.status).toBe(410);
      expect(page.text).toContain('Cette collecte n&#39;accepte plus de paiements');
      expect(page.text).toContain(reason);
      const confirm = await h.request('POST', CONFIRM, { body: { slug, amount: 5000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' } });
      expectError(confirm, 410, 'COLLECTION_NOT_AVAILABLE');
      expect(confirm.json.message).toBe("Cette collecte n'accepte plus de paiements.");
    }
    // A form opened before the close is refused at post time too.
    const open = await collection({ title: 'Ouverte puis fermée' });
    const b = formClient(h);
    const page = await b.get(`/collect/${open.slug}`);
    expectSuccess(await dashboard('PATCH', `/api/v1/merchants/fund-collections/${open.id}/close`), 200);
    const late = await b.post(`/collect/${open.slug}/pay`, { _csrf: page.csrf!, amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' });
    expect(late.status).toBe(410);
    expect(late.html).toContain('Son organisateur l’a clôturée.');
    // Reopened, it takes payments again.
    expectSuccess(await dashboard('PATCH', `/api/v1/merchants/fund-collections/${open.id}/reopen`), 200);
    expectSuccess(await h.request('POST', CONFIRM, { body: { slug: open.slug, amount: 5000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' } }), 201);
  });
});

describe('rate limits per IP', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({ ...DASHBOARD_TEST_ENV, CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: '2' });
  });
  afterAll(async () => limited?.close());

  it('limits form posts and JSON confirms per IP and per hour (429, French)', async () => {
    const owner = await createDashboardAccount(limited);
    const app = await createApplication(limited.services, { merchantId: owner.accountId, name: 'Limitée', currency: 'XAF' });
    const c = expectSuccess(await asAccount(limited, owner.accessToken, 'POST', `/api/v1/merchants/apps/${app.id}/fund-collections`, { body: { title: 'Limite' } }), 201);
    const fields = { amount: '5000', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' };
    const b = formClient(limited);
    const page = await b.get(`/collect/${c.slug}`);
    for (let i = 0; i < 2; i += 1) expect((await b.post(`/collect/${c.slug}/pay`, { ...fields, _csrf: page.csrf! })).status).toBe(303);
    const third = await b.post(`/collect/${c.slug}/pay`, { ...fields, _csrf: page.csrf! });
    expect(third.status).toBe(429);
    expect(third.html).toContain('Trop de tentatives');
    const body = { slug: c.slug, amount: 5000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' };
    for (let i = 0; i < 2; i += 1) expectSuccess(await limited.request('POST', CONFIRM, { body }), 201);
    const refused = await limited.request('POST', CONFIRM, { body });
    expectError(refused, 429, 'TOO_MANY_REQUESTS');
    const rows = await limited.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toHaveLength(4);
  });
});
