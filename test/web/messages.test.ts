/**
 * The web app's catalogue (web/src/i18n/messages.ts) is complete in both languages: French and
 * English have the same keys, no empty message, and the same `{{placeholders}}` in each message
 * (a placeholder missing from one language would show a hole in that language only). That every
 * key the screens use exists is checked by `npm run typecheck` (the keys are i18next's types).
 */
import { describe, expect, it } from 'vitest';
import { catalogueKey, messages } from '../../web/src/i18n/messages.ts';

/** Every message of a catalogue by its dotted key. */
function flatten(tree: object, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${name}` : name;
    if (typeof value === 'string') out.set(key, value);
    else for (const [k, v] of flatten(value as object, key)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)/g)].map((m) => m[1]).sort();

describe('the message catalogue', () => {
  const fr = flatten(messages.fr);
  const en = flatten(messages.en);

  it('has the same keys in French and English', () => {
    expect([...en.keys()].sort()).toEqual([...fr.keys()].sort());
    expect(fr.size).toBeGreaterThan(300);
  });

  it('has no empty message', () => {
    for (const [key, text] of [...fr, ...en]) expect(text.trim(), key).not.toBe('');
  });

  it('uses the same placeholders in both languages', () => {
    for (const [key, text] of fr) expect(placeholders(en.get(key)!), key).toEqual(placeholders(text));
  });

  it('finds the status and error names the API sends, and no others', () => {
    expect(catalogueKey('status', 'SUCCESS')).toBe('status.SUCCESS');
    expect(catalogueKey('errors', 'INSUFFICIENT_BALANCE')).toBe('errors.INSUFFICIENT_BALANCE');
    expect(catalogueKey('status', 'NOT_A_STATUS')).toBeNull();
    expect(catalogueKey('errors', 'constructor')).toBeNull();
  });
});
