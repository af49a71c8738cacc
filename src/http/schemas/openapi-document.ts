/**
 * The OpenAPI document (`/openapi.json`) and its page (`/docs`): Kolo's title, version and
 * introduction, the two security schemes, and the per-route transform that turns each route's
 * zod schemas into JSON Schema (fastify-type-provider-zod), documents the `Idempotency-Key`
 * header of the creation routes, and refuses an example that the route's own schema would refuse.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { version } from '../../version.ts';

/** Operations that honour the `Idempotency-Key` header (http/routes/payments.ts `idempotencyHeader`). */
const IDEMPOTENT_OPERATIONS = new Set(['createCheckout', 'createCharge', 'refundPayment', 'createTransfer', 'createDashboardTransfer']);

const IDEMPOTENCY_HEADER = {
  type: 'object',
  properties: {
    'Idempotency-Key': {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description:
        "Clé d'idempotence choisie par le client (1 à 100 caractères). La même clé avec la même requête rend le résultat d'origine sans rien refaire ; avec une autre requête : 409 IDEMPOTENCY_KEY_REUSED.",
      examples: ['commande-42-paiement-1'],
    },
  },
};

/** The introduction of `/docs` (CommonMark), for the API served at `baseUrl`. */
function introduction(baseUrl: string): string {
  return `Kolo est une passerelle de paiement mobile money, libre et auto-hébergeable : elle encaisse des paiements (page de paiement hébergée ou débit direct d'un numéro), envoie de l'argent (virements, remboursements) sur les rails des opérateurs (MTN MoMo, Orange Money, Wave, M-Pesa) et annonce chaque changement de statut par webhook.

## Adresse de base

\`${baseUrl}\`. Les routes sont versionnées par leur préfixe \`/api/v1/\`. Les corps sont en JSON (\`Content-Type: application/json\`) ; les montants sont des entiers dans l'unité de base de la devise (\`5000\` XAF = 5 000 francs CFA).

## Enveloppe

Chaque réponse JSON a la forme \`{success, code, message, data, timestamp}\` :

- \`success\` : \`true\` ou \`false\` ; \`code\` : \`SUCCESS\`, sinon un code d'erreur de la liste fermée (chaque route donne les siens, par statut HTTP) ;
- \`message\` : texte en français ; \`data\` : le résultat, ou \`null\` en erreur (sauf \`VALIDATION_ERROR\` et \`INVALID_PARAMETER\` : champ → message) ;
- \`timestamp\` : ISO 8601, heure locale du serveur, sans fuseau.

Une réponse 204 n'a pas de corps. Seule une 500 vaut d'être réessayée (avec attente) ; une 400 ou une 404 se reproduira à l'identique.

## Authentification

- **API marchand** (\`/api/v1/pay-in/…\`, \`/api/v1/pay-out/…\`, \`/api/v1/webhook\`) : en-tête \`X-API-KEY: sk_test_…\` ou \`sk_live_…\`, la clé de l'application créée au tableau de bord (affichée une seule fois). Une clé absente, inconnue ou révoquée : 401 \`UNAUTHORIZED\`.
- **Tableau de bord** (\`/api/v1/merchants/…\`, \`/api/v1/admin/…\`) : \`POST /api/v1/auth/login\` rend un \`accessToken\` (JWT) à envoyer en \`Authorization: Bearer <accessToken>\`, et un \`refreshToken\` à usage unique pour \`POST /api/v1/auth/refresh-token\`.

Sur cette page, le bouton **Authorize** enregistre l'une ou l'autre ; **Try it out** envoie alors l'exemple de chaque route.

## Idempotence

Un paiement (\`checkout\`, \`charge\`), un virement ou un remboursement peut porter l'en-tête \`Idempotency-Key\` (1 à 100 caractères ; pour \`charge\`, aussi le champ \`idempotencyKey\`) : la même clé avec la même requête rend le résultat d'origine sans débiter ni envoyer une seconde fois ; avec une autre requête, 409 \`IDEMPOTENCY_KEY_REUSED\`. Sans clé, vérifiez le statut d'une transaction avant de la redemander.

## Bac à sable

Une clé \`sk_test_…\` n'atteint jamais d'opérateur : l'issue dépend des trois derniers chiffres du numéro national. Tout autre numéro réussit après quelques secondes (\`SANDBOX_DELAY_MS\`).

| Numéro (exemple) | Issue |
|---|---|
| \`237677000001\` | SUCCESS |
| \`237677000100\` | FAILED, refusé par le payeur |
| \`237677000102\` | FAILED, solde insuffisant |
| \`237677000106\` | FAILED, délai dépassé |
| \`237677000198\` | SUCCESS tardif (\`SANDBOX_LATE_DELAY_MS\`) |
| \`237677000199\` | PENDING jusqu'au délai du rail, puis FAILED (\`TIMEOUT\`) |`;
}

/** Options of @fastify/swagger for the API served at `baseUrl`. */
export function openApiOptions(baseUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Kolo API',
        description: introduction(baseUrl),
        version,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: baseUrl, description: 'Cette instance de Kolo' }],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-KEY',
            description: "Clé API de l'application : `sk_test_…` (bac à sable) ou `sk_live_…`, 128 caractères hexadécimaux après le préfixe.",
          },
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: "Jeton d'accès du tableau de bord (`accessToken` de `POST /api/v1/auth/login`).",
          },
        },
      },
    },
    transform: openApiTransform,
  };
}

type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

/**
 * The per-route transform: fastify-type-provider-zod's, plus the `Idempotency-Key` header of
 * the idempotent operations. Throws when an example of a request body or a response fails the
 * route's own zod schema, so the document never shows an example the route would refuse.
 */
export function openApiTransform(input: TransformInput): ReturnType<typeof jsonSchemaTransform> {
  const output = jsonSchemaTransform(input);
  const schema = input.schema as Record<string, unknown> | undefined;
  if (!schema || output.schema.hide) return output;
  const where = `${String(input.route.method)} ${input.url}`;
  const documented = output.schema as { body?: Record<string, unknown>; response?: Record<string, Record<string, unknown>> };
  // The converter drops the examples of input schemas: they are put back from the zod metadata.
  if (schema.body instanceof z.ZodType && documented.body) {
    const examples = checkedExamples(schema.body, `${where} body`);
    documented.body.examples ??= examples;
  }
  for (const [status, response] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
    const json = documented.response?.[status];
    if (!(response instanceof z.ZodType) || !json) continue;
    const examples = checkedExamples(response, `${where} ${status}`);
    json.examples ??= examples;
  }
  if (typeof schema.operationId === 'string' && IDEMPOTENT_OPERATIONS.has(schema.operationId)) {
    (output.schema as Record<string, unknown>).headers = IDEMPOTENCY_HEADER;
  }
  return output;
}

/**
 * The examples in `schema`'s metadata (`examples`, or a single `example`; undefined when it has
 * none), each JSON-encoded as the document will show it; throws naming `where` when one does not parse with `schema`.
 */
function checkedExamples(schema: z.ZodType, where: string): unknown[] | undefined {
  const meta = z.globalRegistry.get(schema);
  const examples = Array.isArray(meta?.examples) ? meta.examples : meta && 'example' in meta ? [meta.example] : undefined;
  if (!examples) return undefined;
  for (const example of examples) {
    const parsed = schema.safeParse(example);
    if (!parsed.success) throw new Error(`OpenAPI example of ${where} fails its schema: ${z.prettifyError(parsed.error)}`);
  }
  return JSON.parse(JSON.stringify(examples)) as unknown[];
}

/** Kolo's mark (the dashboard's icon, web/src/favicon.svg). */
const KOLO_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0a6e4f"/><path d="M10 7h4v7.5L20.5 7H25l-7 7.8L25.5 25H20.6l-5.1-7.4L14 19.3V25h-4z" fill="#fff"/></svg>';

/** Options of @fastify/swagger-ui: `/docs` with Kolo's title, logo and icon, nothing from other hosts. */
export const docsUiOptions: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  theme: {
    title: 'Kolo API',
    favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: KOLO_ICON }],
  },
  logo: { type: 'image/svg+xml', content: KOLO_ICON, href: '/docs', target: '_self' },
  uiConfig: { persistAuthorization: false, displayOperationId: true, tryItOutEnabled: false, docExpansion: 'list' },
  validatorUrl: false,
};
