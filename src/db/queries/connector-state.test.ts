/**
 * The connectors' shared state on a real database (PGlite in memory, or PostgreSQL with
 * TEST_DATABASE_URL): values sealed at rest, expiry by the injected clock (both sides of the
 * boundary), one winner among concurrent claims, release only by the holder, and a value sealed
 * under another key read as absent.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../domain/clock.ts';
import { createSecretBox } from '../../webhooks/secret-box.ts';
import { connectorState } from '../schema-operations.ts';
import { createConnectorStateStore } from './connector-state.ts';
import { useTestDatabase } from '../../../test/helpers/test-database.ts';

const testDatabase = useTestDatabase('kolo_connector_state');

describe('connector state store', () => {
  const clock = createManualClock(new Date('2026-11-26T00:00:00Z'));
  const box = createSecretBox(randomBytes(32));
  const at = (ms: number) => new Date(clock.now().getTime() + ms);

  it('stores values sealed, and reads them until their expiry (exclusive)', async () => {
    const store = createConnectorStateStore(testDatabase().db, box, clock);
    await store.put('mpesa:token:a', 'secret-token', at(1000));
    const [row] = await testDatabase().db.select().from(connectorState).where(eq(connectorState.key, 'mpesa:token:a'));
    expect(row!.value).toMatch(/^v1:/);
    expect(row!.value).not.toContain('secret-token');
    clock.advance(999);
    expect(await store.get('mpesa:token:a')).toBe('secret-token');
    clock.advance(1);
    expect(await store.get('mpesa:token:a')).toBeNull();
    expect(await createConnectorStateStore(testDatabase().db, createSecretBox(randomBytes(32)), clock).get('mpesa:token:a')).toBeNull();
  });

  it('one claim among concurrent ones wins; a live lease refuses, an expired one is taken; only the holder releases', async () => {
    const store = createConnectorStateStore(testDatabase().db, box, clock);
    const wins = await Promise.all(['a', 'b', 'c', 'd'].map((owner) => store.claim('lease', owner, at(5000))));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const holder = ['a', 'b', 'c', 'd'][wins.indexOf(true)]!;
    await store.release('lease', 'someone-else');
    expect(await store.get('lease')).toBe(holder);
    expect(await store.claim('lease', 'e', at(5000))).toBe(false);
    clock.advance(5000);
    expect(await store.claim('lease', 'e', at(5000))).toBe(true);
    await store.release('lease', 'e');
    expect(await store.get('lease')).toBeNull();
    expect(await store.claim('lease', 'f', at(5000))).toBe(true);
  });
});
