/**
 * The import boundaries of src/, checked with dependency-cruiser over every module as the
 * TypeScript compiler resolves it. The boundaries hold for every import, type-only ones included:
 * - `domain/` imports nothing of ours outside itself;
 * - `connectors/` never import `db/` or `http/`;
 * - simulators (`connectors/<operator>/simulator/`, `connectors/simulator-http.ts`) are imported
 *   only from `cli/` and tests, and loaded lazily (a dynamic `import()`, run only by
 *   `kolo simulate`) by their operator's definition (`connectors/<operator>/<operator>-operator.ts`);
 * - `accounts/` never imports `payments/`;
 * - the capabilities beside the payments core (`refunds/`, `late-success/`, `withdrawals/`, `batches/`,
 *   `collections/`, `reconciliation/`, `rails/`, `float/`, `statements/`) are imported from outside their folder only through their entry module,
 *   `index.ts`, which says what each offers;
 * - `payments/` is imported from outside its folder only through its entry modules: `index.ts`, or
 *   `core.ts` (rows, rails, fees, status changes, postings, initiation) for the capabilities the
 *   payments flows themselves use (`late-success/`, `refunds/`, `webhooks/`, `metrics/`, the
 *   dashboard's transaction view), which `index.ts` would reach back at run time;
 * and there is no runtime import cycle: none among the imports the compiled modules keep (a cycle
 * closed by a type-only import is allowed: it is erased before the modules run). The cycles are
 * looked for in a second cruise of the compiled imports only, because dependency-cruiser records
 * one cycle per import, which may pass through a type-only import and hide a runtime one.
 */
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The capability folders whose modules outside code reaches only through their `index.ts`. */
const CAPABILITIES = ['refunds', 'late-success', 'withdrawals', 'collections', 'reconciliation', 'rails', 'float', 'statements', 'batches'];

/** The simulators of operators' HTTP APIs and their shared plumbing: test and rehearsal tooling. */
const SIMULATOR = '^src/connectors/([^/]+/simulator/|simulator-http[.]ts$)';

/** An operator's definition, listed in `connectors/operators.ts`: it names how its simulator starts. */
const OPERATOR_DEFINITION = '^src/connectors/[^/]+/[^/]+-operator[.]ts$';

/** The boundaries, over every import. */
const boundaries: IFlattenedRuleSet = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'connectors-stay-out-of-db-and-http',
      severity: 'error',
      from: { path: '^src/connectors/' },
      to: { path: '^src/(db|http)/' },
    },
    {
      name: 'simulators-only-from-cli-and-tests',
      severity: 'error',
      from: { path: '^src/', pathNot: [SIMULATOR, OPERATOR_DEFINITION, '^src/cli/', '[.]test[.]ts$'] },
      to: { path: SIMULATOR },
    },
    {
      name: 'operator-definitions-load-simulators-lazily',
      severity: 'error',
      from: { path: OPERATOR_DEFINITION },
      to: { path: SIMULATOR, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'accounts-never-import-payments',
      severity: 'error',
      from: { path: '^src/accounts/' },
      to: { path: '^src/payments/' },
    },
    {
      name: 'payments-only-through-its-entry-modules',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/payments/' },
      to: { path: '^src/payments/', pathNot: '^src/payments/(index|core)[.]ts$' },
    },
    ...CAPABILITIES.map((capability) => ({
      name: `${capability}-only-through-its-entry-module`,
      severity: 'error' as const,
      from: { path: '^src/', pathNot: `^src/${capability}/` },
      to: { path: `^src/${capability}/`, pathNot: `^src/${capability}/index[.]ts$` },
    })),
  ],
};

/**
 * Over the imports the compiled modules keep: no cycle, and the payments core reaches none of the
 * capabilities that import it and that the payments flows use.
 */
const runtime: IFlattenedRuleSet = {
  forbidden: [
    { name: 'no-runtime-cycle', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'payments-core-below-its-users',
      severity: 'error',
      from: { path: '^src/payments/core[.]ts$' },
      to: { path: '^src/(late-success|refunds|webhooks|dashboard)/', reachable: true },
    },
  ],
};

/** Cruises src/ against `ruleSet`; `typeImports`: whether type-only imports count (before compilation). */
async function cruiseSrc(ruleSet: IFlattenedRuleSet, typeImports: boolean): Promise<ICruiseResult> {
  const { output } = await cruise(
    ['src'],
    {
      baseDir: root,
      validate: true,
      ruleSet,
      tsPreCompilationDeps: typeImports,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
    },
    {},
    { tsConfig: extractTSConfig(`${root}tsconfig.json`) },
  );
  return output as ICruiseResult;
}

/** One line per violation: the rule, then the import (or the cycle) that breaks it. */
function violationsOf(result: ICruiseResult): string[] {
  return result.summary.violations.map((v) =>
    v.cycle ? `${v.rule.name}: ${v.from} → ${v.cycle.map((c) => c.name).join(' → ')}` : `${v.rule.name}: ${v.from} → ${v.to}`,
  );
}

/** The resolved modules `source` imports in `result`, and how (`type-only` among the types when only types are). */
function importsOf(result: ICruiseResult, source: string): Map<string, string[]> {
  const module = result.modules.find((m) => m.source === source);
  return new Map((module?.dependencies ?? []).map((d) => [d.resolved, d.dependencyTypes]));
}

let all: ICruiseResult;
let compiled: ICruiseResult;
beforeAll(async () => {
  [all, compiled] = await Promise.all([cruiseSrc(boundaries, true), cruiseSrc(runtime, false)]);
}, 120_000);

describe('import boundaries of src/', () => {
  it('sees every import of ours, and only the runtime ones in the compiled modules', () => {
    // Guards against a cruise that finds nothing to check (an import it cannot resolve is skipped).
    for (const result of [all, compiled]) {
      const unresolved = result.modules.flatMap((m) => m.dependencies.filter((d) => d.couldNotResolve && d.module.startsWith('.')).map((d) => `${m.source} → ${d.module}`));
      expect(unresolved).toEqual([]);
      expect(result.summary.totalCruised).toBeGreaterThan(150);
    }
    // apply-transition.ts imports the state machine's functions, and only the type of Services.
    expect(importsOf(all, 'src/payments/apply-transition.ts').get('src/domain/transaction-state.ts')).not.toContain('type-only');
    expect(importsOf(all, 'src/payments/apply-transition.ts').get('src/services.ts')).toContain('type-only');
    expect(importsOf(compiled, 'src/payments/apply-transition.ts').has('src/domain/transaction-state.ts')).toBe(true);
    expect(importsOf(compiled, 'src/payments/apply-transition.ts').has('src/services.ts')).toBe(false);
    // An operator's definition names its simulator only through a dynamic import.
    expect(importsOf(all, 'src/connectors/mtn-momo/mtn-momo-operator.ts').get('src/connectors/mtn-momo/simulator/mtn-simulator.ts')).toContain('dynamic-import');
  });

  it('has no module crossing a boundary', () => {
    expect(violationsOf(all)).toEqual([]);
  });

  it('has no runtime import cycle, and the payments core does not reach back to its users', () => {
    expect(violationsOf(compiled)).toEqual([]);
  });
});
