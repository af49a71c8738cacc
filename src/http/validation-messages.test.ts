import { describe, expect, it } from 'vitest';
import { fr } from './schemas/common.ts';
import { fieldName, frenchMessage, type ValidationItem } from './validation-messages.ts';

const item = (keyword: string, instancePath: string, params: Record<string, unknown> = {}, message = 'raw'): ValidationItem => ({
  keyword,
  instancePath,
  message,
  params,
});

describe('fieldName', () => {
  it('turns an instance path into a dotted field name, the root into "body"', () => {
    expect(fieldName(item('x', '/payerAccount'))).toBe('payerAccount');
    expect(fieldName(item('x', '/items/0/name'))).toBe('items.0.name');
    expect(fieldName(item('x', ''))).toBe('body');
  });
});

describe('frenchMessage', () => {
  it('a missing or null field « ne doit pas être nul »', () => {
    expect(frenchMessage(item('invalid_type', '/amount', { expected: 'number' }), {})).toBe('ne doit pas être nul');
    expect(frenchMessage(item('invalid_type', '/amount', { expected: 'number' }), { amount: null })).toBe('ne doit pas être nul');
  });

  it('a value of the wrong type names the expected type', () => {
    expect(frenchMessage(item('invalid_type', '/amount', { expected: 'number' }), { amount: '5000' })).toBe('doit être un nombre');
    expect(frenchMessage(item('invalid_type', '/amount', { expected: 'int' }), { amount: 1.5 })).toBe('doit être un nombre entier');
    expect(frenchMessage(item('invalid_type', '/currency', { expected: 'string' }), { currency: 1 })).toBe('doit être une chaîne de caractères');
    expect(frenchMessage(item('invalid_type', '', { expected: 'object' }), [])).toBe('doit être un objet JSON');
  });

  it('sizes and bounds use the Bean Validation wording integrations know', () => {
    expect(frenchMessage(item('too_big', '/description', { origin: 'string', maximum: 255 }), {})).toBe('la taille doit être comprise entre 0 et 255');
    expect(frenchMessage(item('too_small', '/amount', { origin: 'number', minimum: 1 }), {})).toBe('doit être supérieur ou égal à 1');
    expect(frenchMessage(item('too_small', '/name', { origin: 'string', minimum: 1 }), {})).toBe('ne doit pas être vide');
    expect(frenchMessage(item('too_big', '/amount', { origin: 'number', maximum: 10 }), {})).toBe('doit être inférieur ou égal à 10');
  });

  it('formats and custom messages', () => {
    expect(frenchMessage(item('invalid_format', '/payerEmail', { format: 'email' }), {})).toBe(
      'doit être une adresse électronique syntaxiquement correcte',
    );
    const custom = fr('doit être un numéro de téléphone (test)');
    expect(frenchMessage(item('invalid_format', '/payerAccount', { format: 'regex' }, custom.error), {})).toBe(custom.error);
    expect(frenchMessage(item('something_else', '/x'), {})).toBe('valeur invalide');
  });
});
