/**
 * The web app's dates (web/src/format.ts): the API's zone-less timestamps are the server's wall
 * time and are shown in the reader's zone; the days a user types are sent as server local time.
 * Readers and servers in several zones, winter and summer time included.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiInstant, formatDateTime, inTimeZone, readerToday, serverDayBound, serverStartOfDay } from '../../web/src/format.ts';

/** `formatDateTime` for a reader in `reader` with a server in `server`, in French (24 h clock). */
const shown = (iso: string, reader: string, server: string) => inTimeZone(reader, server, () => formatDateTime(iso, 'fr'));

afterEach(() => {
  vi.useRealTimers();
});

describe('an API timestamp without zone, shown to the reader', () => {
  it('is the server wall time moved to the reader: +3 h in Nairobi, -3 h in São Paulo, for a server in UTC', () => {
    expect(shown('2026-11-20T14:03:07.123', 'Africa/Nairobi', 'UTC')).toBe('20 nov. 2026, 17:03');
    expect(shown('2026-11-20T14:03:07.123', 'America/Sao_Paulo', 'UTC')).toBe('20 nov. 2026, 11:03');
    expect(shown('2026-11-20T14:03:07.123', 'UTC', 'UTC')).toBe('20 nov. 2026, 14:03');
  });

  it('changes day when the shift crosses midnight', () => {
    expect(shown('2026-11-20T22:30:00', 'Africa/Nairobi', 'UTC')).toBe('21 nov. 2026, 01:30');
    expect(shown('2026-11-20T01:30:00', 'America/Sao_Paulo', 'UTC')).toBe('19 nov. 2026, 22:30');
  });

  it('follows summer time: a server in Paris is UTC+2 in July and UTC+1 in January', () => {
    expect(apiInstant('2026-07-01T12:00:00').toISOString()).toBe(new Date('2026-07-01T12:00:00').toISOString());
    expect(inTimeZone('UTC', 'Europe/Paris', () => apiInstant('2026-07-01T12:00:00.250').toISOString())).toBe('2026-07-01T10:00:00.250Z');
    expect(inTimeZone('UTC', 'Europe/Paris', () => apiInstant('2026-01-15T12:00:00').toISOString())).toBe('2026-01-15T11:00:00.000Z');
    expect(shown('2026-07-01T12:00:00', 'Africa/Nairobi', 'Europe/Paris')).toBe('1 juil. 2026, 13:00');
    expect(shown('2026-01-15T12:00:00', 'Africa/Nairobi', 'Europe/Paris')).toBe('15 janv. 2026, 14:00');
  });

  it('follows the reader\'s summer time: noon UTC is 14:00 in Paris before 25 October 2026 and 13:00 after', () => {
    expect(shown('2026-10-24T12:00:00', 'Europe/Paris', 'UTC')).toBe('24 oct. 2026, 14:00');
    expect(shown('2026-10-26T12:00:00', 'Europe/Paris', 'UTC')).toBe('26 oct. 2026, 13:00');
  });

  it('honours a timestamp with Z or an offset whatever the server zone', () => {
    expect(shown('2026-11-20T14:03:07Z', 'Africa/Nairobi', 'Europe/Paris')).toBe('20 nov. 2026, 17:03');
    expect(shown('2026-11-20T14:03:07+01:00', 'Africa/Nairobi', 'UTC')).toBe('20 nov. 2026, 16:03');
  });

  it('shows a dash for no date', () => {
    expect(formatDateTime(null, 'fr')).toBe('—');
  });

  it('refuses an unknown zone for a server render (RangeError)', () => {
    expect(() => inTimeZone('Mars/Olympus', 'UTC', () => 1)).toThrow(RangeError);
    expect(() => inTimeZone('UTC', 'Mars/Olympus', () => 1)).toThrow(RangeError);
  });
});

describe('a day typed by the reader, sent to the API', () => {
  it('is the reader\'s day as server local bounds: 21:00 the day before for Nairobi, 03:00 for São Paulo', () => {
    expect(inTimeZone('Africa/Nairobi', 'UTC', () => [serverDayBound('2026-11-20', 'from'), serverDayBound('2026-11-20', 'to')])).toEqual(['2026-11-19T21:00:00', '2026-11-20T21:00:00']);
    expect(inTimeZone('America/Sao_Paulo', 'UTC', () => [serverDayBound('2026-11-20', 'from'), serverDayBound('2026-11-20', 'to')])).toEqual(['2026-11-20T03:00:00', '2026-11-21T03:00:00']);
  });

  it('lasts 25 hours on the day Paris leaves summer time', () => {
    expect(inTimeZone('Europe/Paris', 'UTC', () => [serverDayBound('2026-10-25', 'from'), serverDayBound('2026-10-25', 'to')])).toEqual(['2026-10-24T22:00:00', '2026-10-25T23:00:00']);
  });

  it('is unchanged when reader and server share a zone, and passed as is when not a day', () => {
    expect(inTimeZone('Africa/Douala', 'Africa/Douala', () => serverDayBound('2026-11-20', 'from'))).toBe('2026-11-20T00:00:00');
    expect(inTimeZone('Africa/Nairobi', 'UTC', () => serverDayBound('20/11/2026', 'from'))).toBe('20/11/2026');
  });

  it('starts "today" at the reader\'s midnight: at 01:30 in Nairobi, today began at 21:00 UTC the day before', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-20T22:30:00Z'));
    expect(inTimeZone('Africa/Nairobi', 'UTC', () => [serverStartOfDay(0), serverStartOfDay(6)])).toEqual(['2026-11-20T21:00:00', '2026-11-14T21:00:00']);
    expect(inTimeZone('UTC', 'UTC', () => serverStartOfDay(0))).toBe('2026-11-20T00:00:00');
  });

  it('names today by the reader\'s date: already the 21st in Nairobi at 22:30 UTC on the 20th', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-20T22:30:00Z'));
    expect(inTimeZone('Africa/Nairobi', 'UTC', () => readerToday())).toBe('2026-11-21');
    expect(inTimeZone('America/Sao_Paulo', 'UTC', () => readerToday())).toBe('2026-11-20');
  });
});
