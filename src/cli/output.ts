/**
 * How commands print: a human text or `--json` (pretty JSON of the same data, dates as ISO
 * 8601 UTC), tables for lists (cli-table3 without borders), and progress lines on stderr for
 * long work. Progress goes to stderr so that stdout stays the result alone (`--json` stays
 * parseable): on a terminal it redraws one line; otherwise (a pipe, a log, CI) it writes plain
 * lines, one per step, so a log shows how far the work went.
 */
import Table from 'cli-table3';
import type { CliIo } from './context.ts';

/** Prints `human` (a line is added), or `json` as JSON when `asJson`. */
export function print(io: CliIo, asJson: boolean | undefined, human: string, json: unknown): void {
  io.out(asJson ? `${JSON.stringify(json, null, 2)}\n` : `${human}\n`);
}

/** A date as `2026-11-26 07:55:01Z`; `-` for none. */
export function shortDate(date: Date | string | null | undefined): string {
  if (date === null || date === undefined) return '-';
  const d = typeof date === 'string' ? new Date(date) : date;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** A column of a table: its heading and how a row shows in it. */
export interface Column<T> {
  head: string;
  cell(row: T): string | number | null | undefined;
}

/** Rows as an aligned table with a heading line; `empty` when there is none. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): string {
  if (rows.length === 0) return empty;
  const t = new Table({
    head: columns.map((c) => c.head),
    chars: {
      top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
      left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ',
    },
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
  });
  for (const row of rows) t.push(columns.map((c) => String(c.cell(row) ?? '-')));
  return t.toString().split('\n').map((line) => line.trimEnd()).join('\n');
}

/** One record as `field  value` lines, fields aligned. */
export function fields(entries: readonly [string, string | number | boolean | null | undefined][]): string {
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, value]) => `${name.padEnd(width)}  ${value === null || value === undefined || value === '' ? '-' : String(value)}`).join('\n');
}

/** A progress reporter of one long task. */
export interface Progress {
  /** Reports the current step (`bytes written: 12.0 MB`…). */
  update(text: string): void;
  /** Ends the progress (a terminal's line is closed). */
  done(): void;
}

/** Redraws on a terminal at most this often: a tight loop must not spend its time drawing. */
const TTY_REDRAW_MS = 100;

/**
 * Progress of `label` on `io.err`: one line redrawn in place on a terminal, plain lines
 * otherwise (callers report steps, not every byte); nothing when `enabled` is false (`--no-progress`).
 */
export function progress(io: CliIo, label: string, enabled: boolean): Progress {
  if (!enabled) return { update() {}, done() {} };
  if (!io.isErrTty) return { update: (text) => io.err(`${label}: ${text}\n`), done() {} };
  let last = 0;
  let shown = '';
  let latest = '';
  const draw = (text: string) => {
    shown = text;
    io.err(`\r${label}: ${text}\u001b[K`);
  };
  return {
    update(text) {
      latest = text;
      const now = Date.now();
      if (shown !== '' && now - last < TTY_REDRAW_MS) return;
      last = now;
      draw(text);
    },
    done() {
      // The last step may have come within the redraw interval: it is the one left on screen.
      if (latest !== shown) draw(latest);
      if (shown !== '') io.err('\n');
    },
  };
}

/** `bytes` for a human: `812 B`, `12.3 kB`, `4.0 MB` (SI units). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}
