/**
 * `node --import tsx bench/cli-startup.ts`: wall time of `kolo` calls that need no database
 * (`--help`, `--version`, `simulate --help`, an unknown command), each run `BENCH_RUNS` times
 * (default 7) as a child process of `node bin/kolo.js`, median and worst. bin/kolo.js runs the
 * compiled dist/ when it is current (`npm run build` first) and the sources through tsx
 * otherwise: run it in both states to compare. The figure includes Node's own start (`node -e ''`
 * is measured alongside as the floor). On these shared machines, read figures next to the floor.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? '7');
const calls: [string, string[]][] = [
  ['node -e "" (floor)', ['-e', '']],
  ['kolo --help', ['bin/kolo.js', '--help']],
  ['kolo --version', ['bin/kolo.js', '--version']],
  ['kolo simulate --help', ['bin/kolo.js', 'simulate', '--help']],
  ['kolo nope (unknown)', ['bin/kolo.js', 'nope']],
];

for (const [name, args] of calls) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`${name.padEnd(24)} median ${median.toFixed(0).padStart(5)} ms   worst ${times.at(-1)!.toFixed(0).padStart(5)} ms`);
}
