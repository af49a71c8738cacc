/**
 * Hosted checkout page through real HTTP (no browser): screens, attempts and retries, cancel,
 * expiry, CSRF, rate limits, escaping, security headers, page weight, and the one-success rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced } from './helpers/ledger.ts';
import { and, eq } from 'drizzle-orm';
import { startHarness, type Harness, type Tenant } from './harness.ts';
import { createCheckout, formClient } from './helpers/checkout.ts';
import { transactionEvents, transactions } from '../src/db/schema.ts';
import { checkoutAttempts } from '../src/db/schema-checkout.ts';
import { pollOnce } from '../src/jobs/status-poller.ts';
import { collectionRails } from '../src/collections/pay-fund-collection.ts';
import type { FundCollectionRow } from '../src/collections/fund-collections.ts';

let h: Harness;
let t: Tenant;
beforeAll(async () => {
  h = await startHarness({ SANDBOX_DELAY_MS: '2000' });
  t = await h.createTenant({
    application: { successUrl: 'https://shop.example/merci?lang=fr', cancelUrl: 'https://shop.example/panier', themeColor: '#ffcc00' },
  });
});
afterAll(async () => {
  // Concurrent attempts and refreshes: the ledger still balances.
  await expectLedgerBalanced(h.services.db);
  await h.close();
});

async function statusOf(reference: string) {
  const response = await h.request('GET', `/api/v1/pay-in/check_status/${reference}`, { key: t.key });
  return response.json.data;
}

async function attemptsOf(reference: string) {
  const [row] = await h.services.db.select().from(transactions).where(eq(transactions.reference, reference));
  const attempts = await h.services.db.select().from(checkoutAttempts).where(eq(checkoutAttempts.transactionId, row!.id));
  const events = await h.services.db.select().from(transactionEvents).where(eq(transactionEvents.transactionId, row!.id)).orderBy(transactionEvents.id);
  return { row: row!, attempts, events };
}

describe('checkout page', () => {
  it('shows the merchant, the amount, the test banner and the rails, with strict security headers and no key', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('App ');
    expect(page.html).toContain('5 000 FCFA');
    expect(page.html).toContain('Commande 42');
    expect(page.html).toContain('Mode test');
    expect(page.html).toContain('MTN Mobile Money Cameroun');
    expect(page.html).toContain('Orange Money Cameroun');
    expect(page.html).toContain('<label for="phone">');
    expect(page.html).not.toContain('sk_test_');
    expect(page.html).not.toContain(t.key);
    // Theme colour #ffcc00 is too light for white text: the page picks dark text.
    expect(page.html).toContain('--brand:#ffcc00;--on-brand:#111111');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self'( 'nonce-[0-9a-f]+')?;/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const cookie = page.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
  });

  it('weighs under 50 KB (HTML + CSS + JS)', async () => {
    const c = await createCheckout(h, t);
    const page = await fetch(`${h.baseUrl}${c.path}`).then((r) => r.arrayBuffer());
    const css = await fetch(`${h.baseUrl}/checkout/assets/checkout.css`).then((r) => r.arrayBuffer());
    const js = await fetch(`${h.baseUrl}/checkout/assets/checkout.js`).then((r) => r.arrayBuffer());
    const total = page.byteLength + css.byteLength + js.byteLength;
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThan(50 * 1024);
  });

  it('escapes a description containing a script', async () => {
    const c = await createCheckout(h, t, { description: '<script>alert("x")</script> & co', merchantReference: '"><img src=x>' });
    const page = await formClient(h).get(c.path);
    expect(page.html).not.toContain('<script>alert');
    expect(page.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co');
    expect(page.html).not.toContain('<img src=x>');
  });

  it('answers 404 for an unknown or malformed session, in HTML and JSON', async () => {
    const unknown = await h.request('GET', `/checkout/cs_${'0'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('Session de paiement introuvable');
    expect((await h.request('GET', '/checkout/nope')).status).toBe(404);
    const json = await h.request('GET', `/checkout/cs_${'0'.repeat(32)}/status`);
    expect(json.status).toBe(404);
    expect(json.json.success).toBe(false);
  });

  it('refuses form posts without a valid CSRF token, and starts nothing', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    const fields = { rail: 'MTN_MOMO_CM', phone: '677123456' };
    // No cookie at all (another site's form post).
    const bare = await fetch(`${h.baseUrl}${c.path}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, _csrf: page.csrf! }).toString(),
      redirect: 'manual',
    });
    expect(bare.status).toBe(403);
    expect(await bare.text()).toContain('Formulaire expiré');
    expect((await b.post(`${c.path}/pay`, { ...fields, _csrf: 'forged' })).status).toBe(403);
    expect((await b.post(`${c.path}/pay`, fields)).status).toBe(403);
    // A token of another session is not valid here.
    const other = await createCheckout(h, t);
    const otherPage = await b.get(other.path);
    expect((await b.post(`${c.path}/pay`, { ...fields, _csrf: otherPage.csrf! })).status).toBe(403);
    expect((await b.post(`${c.path}/cancel`, { _csrf: 'forged' })).status).toBe(403);
    expect((await attemptsOf(c.reference)).attempts).toHaveLength(0);
    expect((await statusOf(c.reference)).status).toBe('PENDING');
  });

  it('validates the phone number for the rail country, with the error beside the field', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    const invalid = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '12345' });
    expect(invalid.status).toBe(400);
    expect(invalid.html).toContain('id="phone-error"');
    expect(invalid.html).toContain("Ce numéro n&#39;est pas un numéro de téléphone valide du Cameroun.");
    expect(invalid.html).toContain('aria-invalid="true"');
    expect(invalid.html).toContain('value="12345"');
    const wrongOperator = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '+237 699 12 34 56' });
    expect(wrongOperator.status).toBe(400);
    expect(wrongOperator.html).toContain('Ce numéro est un numéro Orange Money Cameroun');
    const noRail = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, phone: '677123456' });
    expect(noRail.html).toContain('Choisissez votre opérateur.');
    expect((await attemptsOf(c.reference)).attempts).toHaveLength(0);
  });

  it('a declined attempt leaves the checkout PENDING, shows why, and a retry on another operator succeeds', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    let page = await b.get(c.path);
    const first = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '237677000102' });
    expect(first.status).toBe(303);
    expect(first.location).toBe(c.path);
    page = await b.get(c.path);
    expect(page.html).toContain('Confirmez le paiement sur votre téléphone');
    expect(page.html).toContain('Composez *126# pour valider le paiement');
    expect(page.html).toContain('<noscript><meta http-equiv="refresh" content="5"></noscript>');
    h.clock.advance(2500);
    const status = await b.get(`${c.path}/status`);
    expect(JSON.parse(status.html).data).toMatchObject({ status: 'PENDING', attemptStatus: 'FAILED', attemptFailureCode: 'INSUFFICIENT_FUNDS' });
    expect((await statusOf(c.reference)).status).toBe('PENDING');
    page = await b.get(c.path);
    expect(page.html).toContain('Le solde du compte mobile money est insuffisant.');
    expect(page.html).toContain('réessayer');
    const second = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'ORANGE_MONEY_CM', phone: '699 12 34 56' });
    expect(second.status).toBe(303);
    h.clock.advance(2500);
    // The backstop alone (no page read) settles it.
    await pollOnce(h.services);
    const final = await statusOf(c.reference);
    expect(final).toMatchObject({ status: 'SUCCESS', paymentMethod: 'ORANGE_MONEY_CM', payerAccount: '237699123456', paymentUrl: null });
    const { attempts, events } = await attemptsOf(c.reference);
    expect(attempts.map((a) => [a.attemptNumber, a.status, a.failureCode, a.correlationId])).toEqual([
      [1, 'FAILED', 'INSUFFICIENT_FUNDS', `${c.reference}-1`],
      [2, 'SUCCEEDED', null, `${c.reference}-2`],
    ]);
    expect(events.map((e) => e.cause)).toEqual([
      'CREATED',
      'CHECKOUT_ATTEMPT_STARTED',
      'CHECKOUT_ATTEMPT_FAILED',
      'CHECKOUT_ATTEMPT_STARTED',
      'CHECKOUT_ATTEMPT_SUCCEEDED',
      'CHECKOUT_ATTEMPT',
    ].filter((cause) => cause !== 'CREATED' || events[0]!.cause === 'CREATED'));
    expect(JSON.stringify(events)).not.toContain('237699123456');
    // A terminal checkout shows its final state, and sends the customer back to successUrl.
    page = await b.get(c.path);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Paiement réussi');
    expect(page.html).not.toContain('name="phone"');
    expect(page.html).toContain(
      `<meta http-equiv="refresh" content="3;url=https://shop.example/merci?lang=fr&amp;reference=${c.reference}&amp;merchantReference=ORDER-42&amp;status=SUCCESS">`,
    );
  });

  it('cancel: CANCELLED, then back to cancelUrl with the three parameters', async () => {
    const c = await createCheckout(h, t, { cancelUrl: 'https://shop.example/retour?panier=7#top' });
    const b = formClient(h);
    const page = await b.get(c.path);
    const cancelled = await b.post(`${c.path}/cancel`, { _csrf: page.csrf! });
    expect(cancelled.status).toBe(303);
    expect((await statusOf(c.reference)).status).toBe('CANCELLED');
    const result = await b.get(c.path);
    expect(result.html).toContain('Paiement annulé');
    expect(result.html).toContain(
      `url=https://shop.example/retour?panier=7&amp;reference=${c.reference}&amp;merchantReference=ORDER-42&amp;status=CANCELLED#top"`,
    );
    // Posting again changes nothing.
    expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' })).status).toBe(303);
    expect((await attemptsOf(c.reference)).attempts).toHaveLength(0);
  });

  it('without any URL, the result screen stays', async () => {
    const bare = await h.createTenant();
    const c = await createCheckout(h, bare);
    const b = formClient(h);
    const page = await b.get(c.path);
    await b.post(`${c.path}/cancel`, { _csrf: page.csrf! });
    const result = await b.get(c.path);
    expect(result.html).toContain('Vous pouvez fermer cette page.');
    expect(result.html).not.toContain('http-equiv="refresh"');
  });

  it('after 30 minutes: an attempt still in flight is awaited (up to its rail deadline), then 410 SESSION_EXPIRED', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    // At 20 minutes, an attempt with …199 (never resolves; the rail's deadline is 15 min later).
    h.clock.advance(20 * 60_000);
    await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000199' });
    h.clock.advance(11 * 60_000);
    // The session is over, but the customer may still approve the request on the phone:
    // expiring now could record FAILED for money that moves a minute later.
    const waiting = await b.get(c.path);
    expect(waiting.status).toBe(200);
    expect(waiting.html).toContain('Confirmez le paiement sur votre téléphone');
    expect(await statusOf(c.reference)).toMatchObject({ status: 'PENDING' });
    const late = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' });
    expect(late.status).toBe(303);
    // Past the attempt's rail deadline (20 + 15 min), the attempt fails and the session expires.
    h.clock.advance(5 * 60_000);
    const expired = await b.get(c.path);
    expect(expired.status).toBe(410);
    expect(expired.html).toContain('Cette session de paiement a expiré');
    expect(await statusOf(c.reference)).toMatchObject({ status: 'FAILED', failureCode: 'SESSION_EXPIRED' });
    const { attempts } = await attemptsOf(c.reference);
    expect(attempts.map((a) => [a.status, a.failureCode])).toEqual([['FAILED', 'TIMEOUT']]);
    const json = await b.get(`${c.path}/status`);
    expect(json.status).toBe(410);
    expect(JSON.parse(json.html).code).toBe('SESSION_EXPIRED');
    expect((await b.get(c.path)).status).toBe(410);
  });

  it('cancel is refused while an attempt is in flight, and works once the customer refused it', async () => {
    const c = await createCheckout(h, t);
    const b = formClient(h);
    const page = await b.get(c.path);
    await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000100' });
    const refused = await b.post(`${c.path}/cancel`, { _csrf: page.csrf! });
    expect(refused.status).toBe(303);
    expect(await statusOf(c.reference)).toMatchObject({ status: 'PENDING' });
    const waiting = await b.get(c.path);
    expect(waiting.html).toContain('Refusez la demande sur votre téléphone');
    // The customer declines on the phone (…100): the attempt fails, then cancelling works.
    h.clock.advance(5_000);
    await b.get(c.path);
    await b.post(`${c.path}/cancel`, { _csrf: page.csrf! });
    expect(await statusOf(c.reference)).toMatchObject({ status: 'CANCELLED' });
  });

  it('the poller expires an unpaid session on its own', async () => {
    const c = await createCheckout(h, t);
    h.clock.advance(31 * 60_000);
    await pollOnce(h.services);
    expect(await statusOf(c.reference)).toMatchObject({ status: 'FAILED', failureCode: 'SESSION_EXPIRED' });
  });

  it('two concurrent attempts: one starts; concurrent refreshes record exactly one success', async () => {
    const c = await createCheckout(h, t);
    const alice = formClient(h);
    const bob = formClient(h);
    const [pa, pb] = await Promise.all([alice.get(c.path), bob.get(c.path)]);
    const posts = await Promise.all([
      alice.post(`${c.path}/pay`, { _csrf: pa.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' }),
      bob.post(`${c.path}/pay`, { _csrf: pb.csrf!, rail: 'ORANGE_MONEY_CM', phone: '699123456' }),
    ]);
    expect(posts.map((p) => p.status)).toEqual([303, 303]);
    expect((await attemptsOf(c.reference)).attempts).toHaveLength(1);
    h.clock.advance(2500);
    await Promise.all([alice.get(`${c.path}/status`), bob.get(`${c.path}/status`), alice.get(c.path), pollOnce(h.services)]);
    const { row, attempts, events } = await attemptsOf(c.reference);
    expect(row.status).toBe('SUCCESS');
    expect(attempts.filter((a) => a.status === 'SUCCEEDED')).toHaveLength(1);
    expect(events.filter((e) => e.toStatus === 'SUCCESS' && e.fromStatus === 'PENDING')).toHaveLength(1);
    expect(events.filter((e) => e.cause === 'CHECKOUT_ATTEMPT_SUCCEEDED')).toHaveLength(1);
    // The database itself refuses a second successful attempt.
    await expect(
      h.services.db.insert(checkoutAttempts).values({
        ...attempts[0]!,
        id: h.services.ids.uuid(),
        attemptNumber: 2,
        correlationId: `${c.reference}-2`,
      }),
    ).rejects.toThrow();
    const succeeded = await h.services.db
      .select()
      .from(checkoutAttempts)
      .where(and(eq(checkoutAttempts.transactionId, row.id), eq(checkoutAttempts.status, 'SUCCEEDED')));
    expect(succeeded).toHaveLength(1);
  });
});

describe('checkout rate limits', () => {
  let limited: Harness;
  let tenant: Tenant;
  beforeAll(async () => {
    limited = await startHarness({ SANDBOX_DELAY_MS: '0', CHECKOUT_MAX_ATTEMPTS: '2', CHECKOUT_ATTEMPTS_PER_IP_PER_HOUR: '4' });
    tenant = await limited.createTenant();
  });
  afterAll(async () => limited.close());

  it('limits attempts per session, then per IP', async () => {
    const c = await createCheckout(limited, tenant);
    const b = formClient(limited);
    let page = await b.get(c.path);
    for (let i = 0; i < 2; i += 1) {
      expect((await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000100' })).status).toBe(303);
      limited.clock.advance(2500);
      page = await b.get(c.path);
      expect(page.html).toContain('refusée');
    }
    const third = await b.post(`${c.path}/pay`, { _csrf: page.csrf!, rail: 'MTN_MOMO_CM', phone: '677000100' });
    expect(third.status).toBe(429);
    expect(third.html).toContain('Nombre maximal de tentatives atteint.');
    // Fourth post from this IP within the hour (any session): refused before anything is done.
    const other = await createCheckout(limited, tenant);
    const otherPage = await b.get(other.path);
    const fourth = await b.post(`${other.path}/pay`, { _csrf: otherPage.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' });
    expect(fourth.status).toBe(303);
    const fifth = await b.post(`${other.path}/pay`, { _csrf: otherPage.csrf!, rail: 'MTN_MOMO_CM', phone: '677123456' });
    expect(fifth.status).toBe(429);
    expect(fifth.html).toContain('Trop de tentatives');
  });
});

describe('checkout page: the rails of the currency and the merchant\'s country', () => {
  const railsOn = async (tenant: Tenant) => {
    const c = await createCheckout(h, tenant, { currency: 'XOF' });
    const page = await formClient(h).get(c.path);
    expect(page.status).toBe(200);
    return [...page.html.matchAll(/name="rail" value="([A-Z0-9_]+)"/g)].map((m) => m[1]).sort();
  };

  it('offers a Senegalese merchant Senegal\'s XOF rails only, and the fund collection page the same', async () => {
    const senegal = await h.createTenant({ currency: 'XOF', country: 'SN' });
    expect(await railsOn(senegal)).toEqual(['ORANGE_MONEY_SN', 'WAVE_SN']);
    expect(
      (await collectionRails(h.services, { currency: 'XOF', environment: 'TEST', applicationId: senegal.applicationId } as FundCollectionRow)).map((r) => r.code).sort(),
    ).toEqual(['ORANGE_MONEY_SN', 'WAVE_SN']);
  });

  it('offers every country\'s XOF rails to a merchant without a country, or whose country has none', async () => {
    const everywhere = ['MOOV_MONEY_BJ', 'MTN_MOMO_BJ', 'MTN_MOMO_CI', 'ORANGE_MONEY_CI', 'ORANGE_MONEY_SN', 'WAVE_CI', 'WAVE_SN'];
    expect(await railsOn(await h.createTenant({ currency: 'XOF' }))).toEqual(everywhere);
    expect(await railsOn(await h.createTenant({ currency: 'XOF', country: 'CM' }))).toEqual(everywhere);
  });
});
