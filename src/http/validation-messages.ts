/**
 * French messages for request validation failures, each naming the rule in the wording existing
 * integrations already show (« ne doit pas être nul », « la taille doit être comprise entre
 * 0 et 255 », « doit être supérieur ou égal à 1 »). Input: the validation items that
 * fastify-type-provider-zod attaches to the error (one per zod issue).
 */
import { isCustomMessage } from './schemas/common.ts';

/** One validation item as fastify-type-provider-zod builds it from a zod issue. */
export interface ValidationItem {
  keyword: string;
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

/** The field name an item refers to (`payerAccount`, `items.0.name`), or `body` for the root. */
export function fieldName(item: ValidationItem): string {
  const path = item.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  return path || 'body';
}

function valueAt(body: unknown, field: string): unknown {
  if (field === 'body') return body;
  let current: unknown = body;
  for (const part of field.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const TYPE_NAMES: Record<string, string> = {
  number: 'doit être un nombre',
  int: 'doit être un nombre entier',
  string: 'doit être une chaîne de caractères',
  boolean: 'doit être un booléen',
  object: 'doit être un objet JSON',
  array: 'doit être une liste',
};

/** The French message for one item; `source` is the request part that failed (body, query…). */
export function frenchMessage(item: ValidationItem, source: unknown): string {
  if (isCustomMessage(item.message)) return item.message;
  const p = item.params;
  switch (item.keyword) {
    case 'invalid_type': {
      const value = valueAt(source, fieldName(item));
      if (value === undefined || value === null) return 'ne doit pas être nul';
      return TYPE_NAMES[String(p.expected)] ?? 'a un type invalide';
    }
    case 'too_small':
      if (p.origin === 'string') {
        return p.minimum === 1 ? 'ne doit pas être vide' : `la taille doit être d'au moins ${String(p.minimum)} caractères`;
      }
      if (p.origin === 'array') return `doit contenir au moins ${String(p.minimum)} éléments`;
      return `doit être supérieur ou égal à ${String(p.minimum)}`;
    case 'too_big':
      if (p.origin === 'string') return `la taille doit être comprise entre 0 et ${String(p.maximum)}`;
      if (p.origin === 'array') return `doit contenir au plus ${String(p.maximum)} éléments`;
      return `doit être inférieur ou égal à ${String(p.maximum)}`;
    case 'invalid_format':
      if (p.format === 'email') return 'doit être une adresse électronique syntaxiquement correcte';
      if (p.format === 'url') return 'doit être une URL http(s) valide';
      return 'ne respecte pas le format attendu';
    case 'invalid_value':
      return Array.isArray(p.values) ? `doit valoir l'une des valeurs : ${p.values.join(', ')}` : 'valeur non autorisée';
    default:
      return 'valeur invalide';
  }
}
