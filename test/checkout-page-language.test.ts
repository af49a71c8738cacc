/**
 * The hosted checkout page in the payer's browser language: English or French from
 * Accept-Language (q-values honoured), French when the browser asks for neither or sends nothing;
 * every screen (form, errors, waiting, failure, result, expiry, 404) and amounts per currency and
 * locale (XAF and KES counted in whole units, without decimals). The API's `message` stays French.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout, formClient } from './helpers/checkout.ts';

const EN = 'en-US,en;q=0.9';

let h: Harness;
let xaf: Tenant;
let kes: Tenant;
beforeAll(async () => {
  h = await startHarness({ SANDBOX_DELAY_MS: '2000' });
  xaf = await h.createTenant({ application: { name: 'Boutique Ndolo', successUrl: 'https://shop.example/ok' } });
  kes = await h.createTenant({ currency: 'KES', application: { name: 'Duka la Mama' } });
});
afterAll(async () => h?.close());

/** The `lang` of the page's <html>. */
const htmlLang = (html: string) => /<html lang="([a-z]+)">/.exec(html)?.[1];

describe('language of the checkout page', () => {
  it('English for an English browser: lang, labels, button, test banner, hint; Vary: Accept-Language', async () => {
    const c = await createCheckout(h, xaf);
    const page = await formClient(h, { acceptLanguage: EN }).get(c.path);
    expect(page.status).toBe(200);
    expect(htmlLang(page.html)).toBe('en');
    expect(page.headers.get('vary')).toMatch(/accept-language/i);
    expect(page.html).toContain('<title>Payment · Boutique Ndolo</title>');
    expect(page.html).toContain('<legend>Choose your operator</legend>');
    expect(page.html).toContain('<label for="phone">Mobile money phone number</label>');
    expect(page.html).toContain('The number that will pay, for example 6 77 12 34 56.');
    expect(page.html).toContain('>Pay FCFA 5,000</button>');
    expect(page.html).toContain('>Cancel</button>');
    expect(page.html).toContain('<strong>Test mode</strong>: no real money is debited.');
    expect(page.html).toContain('<b>101</b> wrong PIN');
    expect(page.html).toContain('Payment secured by Kolo');
    for (const french of ['Numéro de téléphone', 'Payer', 'Annuler', 'Mode test', 'Référence', 'FCFA 5 000', '5 000 FCFA']) expect(page.html).not.toContain(french);
  });

  it('French for a French browser, and French when the browser asks for neither language or sends nothing', async () => {
    const c = await createCheckout(h, xaf);
    for (const acceptLanguage of ['fr-FR,fr;q=0.9', 'de-DE,de;q=0.9', 'sw-KE, sw', '*']) {
      const page = await formClient(h, { acceptLanguage }).get(c.path);
      expect(htmlLang(page.html), acceptLanguage).toBe('fr');
      expect(page.html, acceptLanguage).toContain('<label for="phone">Numéro de téléphone mobile money</label>');
      expect(page.html, acceptLanguage).toContain('>Payer 5 000 FCFA</button>');
      expect(page.headers.get('vary'), acceptLanguage).toMatch(/accept-language/i);
    }
    // No Accept-Language header at all (fetch always sends one, inject does not).
    const bare = await h.app.inject({ method: 'GET', url: c.path });
    expect(bare.headers['accept-language']).toBeUndefined();
    expect(htmlLang(bare.body)).toBe('fr');
    expect(bare.body).toContain('Choisissez votre opérateur');
  });

  it('honours q-values: the most preferred of English and French wins, whatever the order', async () => {
    const c = await createCheckout(h, xaf);
    const cases: [string, 'en' | 'fr'][] = [
      ['fr;q=0.4, en;q=0.8', 'en'],
      ['en;q=0.5, fr;q=0.9', 'fr'],
      ['de, en;q=0.1', 'en'],
      ['de, fr;q=0.2, en;q=0.1', 'fr'],
      ['en;q=0, fr', 'fr'],
      ['en-GB;q=0.7, fr-CA;q=0.6, *;q=0.1', 'en'],
      ['EN-gb', 'en'],
    ];
    for (const [acceptLanguage, expected] of cases) {
      const page = await formClient(h, { acceptLanguage }).get(c.path);
      expect(htmlLang(page.html), acceptLanguage).toBe(expected);
    }
  });

  it('KES amounts are whole shillings: KES 5,000 in English, 5 000 KES in French, and Kenya hints', async () => {
    const c = await createCheckout(h, kes, { amount: 5000, currency: 'KES', description: 'Order 7' });
    const en = await formClient(h, { acceptLanguage: EN }).get(c.path);
    expect(en.status).toBe(200);
    expect(en.html).toContain('<p class="amount">KES 5,000</p>');
    expect(en.html).toContain('>Pay KES 5,000</button>');
    expect(en.html).toContain('M-Pesa');
    expect(en.html).toContain('The number that will pay, for example 0712 345678.');
    const fr = await formClient(h, { acceptLanguage: 'fr' }).get(c.path);
    expect(fr.html).toContain('<p class="amount">5 000 KES</p>');
    expect(fr.html).toContain('>Payer 5 000 KES</button>');
  });

  it('XAF amounts have no decimals: FCFA 5,000 in English, 5 000 FCFA in French', async () => {
    const c = await createCheckout(h, xaf, { amount: 1_234_567 - 234_567 });
    const en = await formClient(h, { acceptLanguage: EN }).get(c.path);
    expect(en.html).toContain('<p class="amount">FCFA 1,000,000</p>');
    const fr = await formClient(h, { acceptLanguage: 'fr' }).get(c.path);
    expect(fr.html).toContain('<p class="amount">1 000 000 FCFA</p>');
  });

  it('English errors, waiting screen, failure and retry, then the English success screen', async () => {
    const c = await createCheckout(h, xaf);
    const b = formClient(h, { acceptLanguage: EN });
    let page = await b.get(c.path);
    const invalid = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '12345' });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('This is not a valid phone number in Cameroon.');
    const wrongOperator = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '699 12 34 56' });
    expect(wrongOperator.html).toContain('This number belongs to Orange Money Cameroun, not MTN Mobile Money Cameroun.');
    const empty = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, phone: '' });
    expect(empty.html).toContain('Choose your operator.');
    expect(empty.html).toContain('Enter your phone number.');

    const declined = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000100' });
    expect(declined.status).toBe(303);
    page = await b.get(c.path);
    expect(page.html).toContain('<h1 id="waiting-title">Confirm the payment on your phone</h1>');
    expect(page.html).toContain('Dial *126# to approve the payment');
    expect(page.html).toContain('A payment request for <strong class="nowrap">FCFA 5,000</strong> has been sent to <strong class="nowrap">+237 677 00 01 00</strong>');
    expect(page.html).toContain('Waiting for your confirmation…');
    h.clock.advance(2500);
    page = await b.get(c.path);
    expect(page.html).toContain('The payment did not go through: The payment request was declined on the phone.');
    expect(page.html).toContain('You can try again, with the same number or another number or operator.');

    await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' });
    h.clock.advance(2500);
    page = await b.get(c.path);
    expect(page.html).toContain('<h1 id="result-title">Payment successful</h1>');
    expect(page.html).toContain('Thank you! Your payment has been received.');
    expect(page.html).toContain("Taking you back to the merchant&#39;s website…");
    // The JSON status the page polls keeps the API's French message.
    const status = await h.request('GET', `${c.path}/status`, { headers: { 'accept-language': EN } });
    expect(status.json.message).toBe('Statut de la session de paiement.');
  });

  it('English cancel, expiry, unknown session and refused form screens', async () => {
    const b = formClient(h, { acceptLanguage: EN });
    const cancelled = await createCheckout(h, xaf);
    let page = await b.get(cancelled.path);
    await b.post(`${cancelled.path}/cancel`, { _csrf: page.csrf! });
    page = await b.get(cancelled.path);
    expect(page.html).toContain('<h1 id="result-title">Payment cancelled</h1>');
    expect(page.html).toContain('You cancelled the payment. Nothing was debited.');

    const expiring = await createCheckout(h, xaf);
    h.clock.advance(31 * 60_000);
    const expired = await b.get(expiring.path);
    expect(expired.status).toBe(410);
    expect(htmlLang(expired.html)).toBe('en');
    expect(expired.html).toContain('This payment session has expired');

    const unknown = await b.get(`/checkout/cs_${'0'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(htmlLang(unknown.html)).toBe('en');
    expect(unknown.html).toContain('Payment session not found');
    expect(unknown.headers.get('vary')).toMatch(/accept-language/i);

    const fresh = await createCheckout(h, xaf);
    const refused = await b.post(`${fresh.path}/pay`, { rail: 'MTN_MOMO_CM', phone: '677123456' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Form expired');
    expect(refused.html).toContain('Reload the payment page');
  });
});
