/**
 * The rails' reads (`providers`) that run on every payment, behind typed functions; the checks of
 * the merchant API that depend on the rail live in src/payments/rails.ts. Reads of one event-loop
 * turn share one statement (batch.ts); nothing is cached between turns.
 */
import { mapRow, perDatabase } from '../batch.ts';
import type { Db } from '../client.ts';
import { providers } from '../schema.ts';
import { runStatement, statement } from '../statement.ts';

/** A rail row. */
export type RailRow = typeof providers.$inferSelect;

const railsByCode = statement('rails_by_code_v1', 'select * from providers where code = any($1::text[])');
const railsOf = perDatabase<string, RailRow | null>(async (db, codes) => {
  const { rows } = await runStatement<Record<string, unknown>>(db, railsByCode, [[...new Set(codes)]]);
  const byCode = new Map(rows.map((r) => [r.code as string, mapRow(providers, r)]));
  return codes.map((c) => byCode.get(c) ?? null);
});

/**
 * The rail with provider code `code`, active or not, or null. The codes asked in one event-loop
 * turn are read by one statement. Throws the driver's error.
 */
export function railByCode(db: Db, input: { code: string }): Promise<RailRow | null> {
  return railsOf(db).load(input.code);
}
