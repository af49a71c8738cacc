/**
 * The result of an asynchronous balance query (Daraja's Account Balance), posted to the URL of
 * `balance-token.ts`: stored as the rail's float reading, dated when the query was sent (a
 * pay-out paid in between is then counted as spent, never as still available); a result older
 * than the rail's latest known reading is dropped.
 */
import { latestKnownFloatReading } from '../db/queries/float.ts';
import type { Services } from '../services.ts';
import { readBalanceToken } from './balance-token.ts';
import { storeReading } from './read-float.ts';

/**
 * What a result posted to a balance result URL did: `STORED` (a reading was stored and the float
 * settled), `STALE` (a newer reading exists), `REFUSED` (bad or expired token, or a rail without
 * an asynchronous balance query). The HTTP answer is the same for all (200).
 */
export type BalanceResultOutcome = 'STORED' | 'STALE' | 'REFUSED';

/**
 * Receives the body (parsed JSON, or undefined) an operator posted to the balance result URL
 * with `token`: read by the rail's connector (`readBalanceResult`), stored as a reading dated
 * when the query was sent, then the float is settled (crossing notified, queue released).
 */
export async function receiveBalanceResult(services: Services, token: string, body: unknown): Promise<BalanceResultOutcome> {
  const named = readBalanceToken(services, token);
  const connector = named ? services.connectors.live.get(named.railCode) : undefined;
  if (!named || !connector?.readBalanceResult) return 'REFUSED';
  const known = await latestKnownFloatReading(services.db, named.railCode);
  if (known && known.readAt > named.issuedAt) return 'STALE';
  await storeReading(services, named.railCode, connector.readBalanceResult(body), named.issuedAt);
  return 'STORED';
}
