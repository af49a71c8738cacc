/**
 * `GET /checkout/:token`: the page behind a checkout's `paymentUrl`. This minimal version shows
 * the amount, the description and the status, in French; 404 for an unknown session, 410 once
 * the session has expired (compatibility.md: `SESSION_EXPIRED`).
 */
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { transactions } from '../db/schema.ts';
import type { Services } from '../services.ts';

const STATUS_TEXT: Record<string, string> = {
  PENDING: 'En attente de paiement',
  SUCCESS: 'Paiement réussi',
  FAILED: 'Paiement échoué',
  CANCELLED: 'Paiement annulé',
  REFUNDED: 'Paiement remboursé',
};

/** Escapes text for HTML element and attribute content. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Formats an amount in base units for display, e.g. `5 000 FCFA` for 5000 XAF. */
export function formatAmount(amount: number, currency: string): string {
  const digits = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }).format(amount).replace(/\s/g, ' ');
  return `${digits} ${currency === 'XAF' || currency === 'XOF' ? 'FCFA' : currency}`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="fr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem">${body}</body></html>`;
}

/** Registers the minimal checkout page. */
export async function checkoutPageRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { token: string } }>('/checkout/:token', { schema: { hide: true } }, async (request, reply) => {
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    const token = request.params.token;
    const [row] = /^cs_[0-9a-f]{32}$/.test(token)
      ? await services.db.select().from(transactions).where(eq(transactions.checkoutToken, token)).limit(1)
      : [];
    if (!row) return reply.code(404).send(page('Session introuvable', '<h1>Session de paiement introuvable</h1>'));
    const expired =
      (row.status === 'FAILED' && row.failureCode === 'SESSION_EXPIRED') ||
      (row.status === 'PENDING' && row.expiresAt !== null && row.expiresAt <= services.clock.now());
    if (expired) {
      return reply
        .code(410)
        .send(page('Session expirée', '<h1>Session expirée</h1><p>Cette session de paiement a expiré (SESSION_EXPIRED).</p>'));
    }
    const body =
      `<h1>${escapeHtml(formatAmount(row.amount, row.currency))}</h1>` +
      (row.description ? `<p>${escapeHtml(row.description)}</p>` : '') +
      `<p>Référence : ${escapeHtml(row.reference)}</p>` +
      `<p><strong>${escapeHtml(STATUS_TEXT[row.status] ?? row.status)}</strong></p>`;
    return reply.send(page('Paiement', body));
  });
}
