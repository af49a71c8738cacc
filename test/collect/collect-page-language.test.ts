/**
 * The fund collection page in the payer's browser language: English or French from
 * Accept-Language (q-values honoured), French otherwise; the form, its errors, the script's
 * texts, the waiting and result screens, closed and unknown collections, and amounts per currency
 * and locale. The public collect API's `message` stays French.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.ts';
import { createApplication } from '../../src/accounts/applications.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { transactions } from '../../src/db/schema.ts';
import { asAccount, createDashboardAccount, DASHBOARD_TEST_ENV, type DashboardAccount } from '../helpers/dashboard.ts';
import { formClient } from '../helpers/checkout.ts';
import { expectError, expectSuccess } from '../helpers/merchant-api.ts';

const EN = 'en-US,en;q=0.9';

let h: Harness;
let merchant: DashboardAccount;
let xafAppId: string;
let kesAppId: string;

beforeAll(async () => {
  h = await startHarness({ ...DASHBOARD_TEST_ENV, SANDBOX_DELAY_MS: '0' });
  merchant = await createDashboardAccount(h);
  for (const currency of ['XAF', 'KES'] as const) {
    const app = await createApplication(h.services, { merchantId: merchant.accountId, name: `Chorale ${currency}`, currency });
    // A TEST key makes the application's collections TEST ones (sandbox rails).
    await createApiKey(h.services, { applicationId: app.id, name: 'k', environment: 'TEST' });
    if (currency === 'XAF') xafAppId = app.id;
    else kesAppId = app.id;
  }
});
afterAll(async () => h?.close());

async function collection(appId: string, body: Record<string, unknown> = {}) {
  const response = await asAccount(h, merchant.accessToken, 'POST', `/api/v1/merchants/apps/${appId}/fund-collections`, {
    body: { title: 'Robes de la chorale', ...body },
  });
  return expectSuccess(response, 201);
}

const htmlLang = (html: string) => /<html lang="([a-z]+)">/.exec(html)?.[1];

/** The script's texts the page hands to collect.js. */
function scriptMessages(html: string): Record<string, unknown> {
  const raw = /data-messages="([^"]*)"/.exec(html)![1]!;
  return JSON.parse(raw.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'));
}

describe('language of the collection page', () => {
  it('English for an English browser: lang, labels, expiry date, optional details, the script texts; Vary', async () => {
    const c = await collection(xafAppId, { collectCustomerInfo: true, expiresAt: '2026-12-31T23:59:00' });
    const page = await formClient(h, { acceptLanguage: EN }).get(`/collect/${c.slug}`);
    expect(page.status).toBe(200);
    expect(htmlLang(page.html)).toBe('en');
    expect(page.headers.get('vary')).toMatch(/accept-language/i);
    expect(page.html).toContain('<label for="amount">Amount to give (FCFA)</label>');
    expect(page.html).toContain('<legend>Choose your operator</legend>');
    expect(page.html).toContain('<label for="payerAccount">Mobile money phone number</label>');
    expect(page.html).toContain('<legend>Your details (optional)</legend>');
    expect(page.html).toContain('<label for="payerEmail">Email address</label>');
    expect(page.html).toContain('Collection open until 31 December 2026 at 23:59.');
    expect(page.html).toContain('>Pay</button>');
    expect(page.html).toContain('<strong>Test mode</strong>');
    expect(scriptMessages(page.html)).toMatchObject({
      amountRequired: 'Enter the amount you wish to give.',
      network: 'The connection failed. Check your network and try again.',
      useApiMessages: false,
    });
    for (const french of ['Montant à donner', 'Vos coordonnées', 'Collecte ouverte', 'Payer', 'Saisissez']) expect(page.html).not.toContain(french);
  });

  it('French for a French browser, for neither language, and without the header; q-values decide between the two', async () => {
    const c = await collection(xafAppId, { isAmountFixed: true, amount: 5000 });
    for (const acceptLanguage of ['fr-FR', 'es-ES,es;q=0.9', 'en;q=0.3, fr;q=0.7']) {
      const page = await formClient(h, { acceptLanguage }).get(`/collect/${c.slug}`);
      expect(htmlLang(page.html), acceptLanguage).toBe('fr');
      expect(page.html, acceptLanguage).toContain('>Payer 5 000 FCFA</button>');
      expect(scriptMessages(page.html).useApiMessages).toBe(true);
    }
    const bare = await h.app.inject({ method: 'GET', url: `/collect/${c.slug}` });
    expect(htmlLang(bare.body)).toBe('fr');
    const en = await formClient(h, { acceptLanguage: 'fr;q=0.5, en-GB;q=0.8' }).get(`/collect/${c.slug}`);
    expect(htmlLang(en.html)).toBe('en');
    expect(en.html).toContain('>Pay FCFA 5,000</button>');
    expect(en.html).toContain('<p class="description">Fixed amount</p>');
  });

  it('a fixed KES amount is whole shillings: KES 5,000 in English and 5 000 KES in French', async () => {
    const c = await collection(kesAppId, { isAmountFixed: true, amount: 5000 });
    const en = await formClient(h, { acceptLanguage: EN }).get(`/collect/${c.slug}`);
    expect(en.html).toContain('<p class="amount">KES 5,000</p>');
    expect(en.html).toContain('>Pay KES 5,000</button>');
    expect(en.html).toContain('M-Pesa Kenya');
    const fr = await formClient(h, { acceptLanguage: 'fr' }).get(`/collect/${c.slug}`);
    expect(fr.html).toContain('<p class="amount">5 000 KES</p>');
  });

  it('a free KES amount is typed in whole shillings and paid as typed; a decimal amount is refused', async () => {
    const c = await collection(kesAppId, { amount: 2500 });
    const b = formClient(h, { acceptLanguage: EN });
    const page = await b.get(`/collect/${c.slug}`);
    expect(page.html).toContain('<label for="amount">Amount to give (KES)</label>');
    expect(page.html).toMatch(/id="amount"[^>]*value="2500"/);
    expect(page.html).toContain('data-amount-decimals="0"');
    const pay = (amount: string) => b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount, paymentMethod: 'MPESA_KE', payerAccount: '0712345678' });
    // Never read as 1250 shillings, nor as 12 shillings 50 cents M-Pesa cannot move.
    const decimal = await pay('12.50');
    expect(decimal.status).toBe(400);
    expect(decimal.html).toContain('Enter the amount in figures, without decimals (for example 5000).');
    const paid = await pay('1 250');
    expect(paid.status).toBe(303);
    h.clock.advance(2500);
    const thanks = await b.get(paid.location!);
    expect(thanks.html).toContain('<p class="amount">KES 1,250</p>');
    const rows = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: 1250, currency: 'KES', paymentMethod: 'MPESA_KE' });
  });

  it('English field errors from the form post, and nothing started', async () => {
    const c = await collection(xafAppId, { collectCustomerInfo: true });
    const b = formClient(h, { acceptLanguage: EN });
    const page = await b.get(`/collect/${c.slug}`);
    const pay = (fields: Record<string, string>) => b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, paymentMethod: 'MTN_MOMO_CM', ...fields });
    const empty = await pay({ amount: '', payerAccount: '' });
    expect(empty.status).toBe(400);
    expect(empty.html).toContain('Enter the amount you wish to give.');
    expect(empty.html).toContain('Enter your phone number.');
    const letters = await pay({ amount: 'cinq', payerAccount: '677123456' });
    expect(letters.html).toContain('Enter the amount in figures, without decimals (for example 5000).');
    const email = await pay({ amount: '5000', payerAccount: '677123456', payerEmail: 'not-an-address' });
    expect(email.html).toContain('This email address is not valid. Correct it or leave the field empty.');
    const operator = await pay({ amount: '5000', payerAccount: '699123456' });
    expect(operator.html).toContain('This number belongs to Orange Money Cameroun, not MTN Mobile Money Cameroun.');
    const invalid = await pay({ amount: '5000', payerAccount: '12' });
    expect(invalid.html).toContain('This is not a valid phone number in Cameroon.');
    const tooSmall = await pay({ amount: '50', payerAccount: '677123456' });
    expect(tooSmall.html).toContain('MTN Mobile Money Cameroun accepts payments from FCFA 100. Choose another amount or another operator.');
    const noRail = await pay({ amount: '5000', payerAccount: '677123456', paymentMethod: 'NOPE' });
    expect(noRail.html).toContain('Choose your operator.');
    for (const answer of [empty, letters, email, operator, invalid, tooSmall, noRail]) {
      expect(answer.status).toBe(400);
      expect(htmlLang(answer.html)).toBe('en');
    }
    const rows = await h.services.db.select().from(transactions).where(eq(transactions.merchantReference, c.slug));
    expect(rows).toEqual([]);
  });

  it('English result screens: a declined payment and its retry link, then thanks', async () => {
    const c = await collection(xafAppId);
    const b = formClient(h, { acceptLanguage: EN });
    let page = await b.get(`/collect/${c.slug}`);
    const declined = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '2500', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677000100' });
    expect(declined.status).toBe(303);
    h.clock.advance(2500);
    const failed = await b.get(declined.location!);
    expect(htmlLang(failed.html)).toBe('en');
    expect(failed.html).toContain('The payment did not go through');
    expect(failed.html).toContain('The payment request was declined on the phone.');
    expect(failed.html).toContain('Nothing was debited.');
    expect(failed.html).toContain('>Try again</a>');
    page = await b.get(`/collect/${c.slug}`);
    const paid = await b.post(`/collect/${c.slug}/pay`, { _csrf: page.csrf!, amount: '2500', paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' });
    h.clock.advance(2500);
    const thanks = await b.get(paid.location!);
    expect(thanks.html).toContain('Thank you! Your payment has been received.');
    expect(thanks.html).toContain('Your contribution to “Robes de la chorale” has been recorded.');
    expect(thanks.html).toContain('<p class="amount">FCFA 2,500</p>');
    expect(thanks.html).toContain('>Make another payment</a>');
  });

  it('English closed and unknown collections; the JSON API keeps its French message', async () => {
    const c = await collection(xafAppId, { title: 'Voyage' });
    expectSuccess(await asAccount(h, merchant.accessToken, 'PATCH', `/api/v1/merchants/fund-collections/${c.id}/close`), 200);
    const b = formClient(h, { acceptLanguage: EN });
    const closed = await b.get(`/collect/${c.slug}`);
    expect(closed.status).toBe(410);
    expect(closed.html).toContain('This collection no longer accepts payments');
    expect(closed.html).toContain('Its organiser has closed it.');
    const unknown = await b.get('/collect/inconnue-00000000');
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('Collection not found');
    const confirm = await h.request('POST', '/api/v1/public/collect/confirm', {
      headers: { 'accept-language': EN },
      body: { slug: c.slug, amount: 5000, paymentMethod: 'MTN_MOMO_CM', payerAccount: '677123456' },
    });
    expectError(confirm, 410, 'COLLECTION_NOT_AVAILABLE');
    expect(confirm.json.message).toBe("Cette collecte n'accepte plus de paiements.");
  });
});
