/**
 * `kolo reconcile`, run in this process over a fresh database: usage errors exit 2 naming the
 * option; a rail without an API and without `--file` exits 1 with STATEMENT_FILE_REQUIRED; a
 * malformed statement exits 1 naming the line and opens nothing; an MTN export whose movements
 * Kolo never asked for opens one OPERATOR_ONLY case each and reports the drift; the same file
 * again opens nothing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';

const dir = mkdtempSync(join(tmpdir(), 'kolo-reconcile-'));
const dataDir = join(dir, 'data');

async function run(argv: string[]) {
  let out = '';
  let err = '';
  const result = await runCli(argv, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code: 'exitCode' in result ? result.exitCode : null, out, err };
}

const PERIOD = ['--from', '2026-11-19T00:00:00Z', '--to', '2026-11-20T00:00:00Z'];
const HEADER = 'Id,External Transaction Id,Date,Status,Type,From,To,Amount,Currency,Reversal Of';

describe('kolo reconcile', () => {
  it('refuses bad arguments (exit 2), a rail without API or file and a malformed file (exit 1)', async () => {
    const badFrom = await run(['reconcile', '--rail', 'MTN_MOMO_CM', '--from', 'yesterday', '--to', '2026-11-20T00:00:00Z']);
    expect(badFrom.code).toBe(2);
    expect(badFrom.err).toContain('--from');
    const noFile = await run(['reconcile', '--rail', 'MTN_MOMO_CM', ...PERIOD]);
    expect(noFile.code).toBe(1);
    expect(noFile.err).toContain('STATEMENT_FILE_REQUIRED');
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, `${HEADER}\n1000000001,,2026-11-19 10:00:00,SUCCESSFUL,PAYMENT,237677000001,KOLO,5000,XAF,\n1000000002,,2026-11-19 11:00:00,DONE,PAYMENT,237677000002,KOLO,5000,XAF,\n`);
    const refused = await run(['reconcile', '--rail', 'MTN_MOMO_CM', ...PERIOD, '--file', bad]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('STATEMENT_FILE_INVALID');
    expect(refused.err).toContain('ligne 3');
  });

  it('opens one case per movement Kolo never asked for, reports the drift; the same file again opens nothing', async () => {
    const file = join(dir, 'mtn.csv');
    writeFileSync(file, `${HEADER}\n1000000001,,2026-11-19 10:00:00,SUCCESSFUL,PAYMENT,237677000001,KOLO,5000,XAF,\n1000000003,,2026-11-19 12:00:00,SUCCESSFUL,ADJUSTMENT,,KOLO,-250,XAF,\n`);
    const first = await run(['reconcile', '--rail', 'MTN_MOMO_CM', ...PERIOD, '--file', file, '--json']);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ railCode: 'MTN_MOMO_CM', source: 'FILE', operatorRecords: 2, casesOpened: 2, openedByKind: { OPERATOR_ONLY: 1, BALANCE_DRIFT: 1 }, drift: 5250 });
    const again = await run(['reconcile', '--rail', 'MTN_MOMO_CM', ...PERIOD, '--file', file]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('cases opened: 0');
    expect(again.out).toContain('drift (open cases): 5250 XAF');
  });
});
