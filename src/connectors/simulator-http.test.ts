/**
 * The simulators' latency draws follow the distribution they are given (log-normal, median and
 * p99 as configured), and a payer's decision delay falls in its range: what the LIVE-path
 * benchmark relies on to play operators as they were measured answering real payments.
 */
import { expect, it } from 'vitest';
import { decisionDelayOf, latencyOf, NO_LATENCY, sampleLatencyMs } from './simulator-http.ts';

it('log-normal draws: median 120 ms and p99 380 ms over 20,000 draws, within a few percent', () => {
  const draws = Array.from({ length: 20_000 }, () => sampleLatencyMs({ medianMs: 120, p99Ms: 380 })).sort((a, b) => a - b);
  expect(draws[10_000]!).toBeGreaterThan(114);
  expect(draws[10_000]!).toBeLessThan(126);
  expect(draws[19_800]!).toBeGreaterThan(340);
  expect(draws[19_800]!).toBeLessThan(420);
  expect(draws[19_999]!).toBeLessThanOrEqual(3800);
});

it('fixed latencies stay as they were unless a distribution is set', () => {
  expect(latencyOf({ ...NO_LATENCY, status: 75 }, 'status')).toBe(75);
  expect(latencyOf({ ...NO_LATENCY, distribution: null }, 'initiate')).toBe(0);
});

it('decision delay: fixed by default, uniform within [min, max] when a max is set', () => {
  expect(decisionDelayOf({ decisionDelayMs: 2000 })).toBe(2000);
  const delays = Array.from({ length: 500 }, () => decisionDelayOf({ decisionDelayMs: 1000, decisionDelayMaxMs: 4000 }));
  expect(Math.min(...delays)).toBeGreaterThanOrEqual(1000);
  expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
  expect(new Set(delays).size).toBeGreaterThan(100);
});
