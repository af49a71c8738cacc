/**
 * What an operator is to the rest of Kolo: one folder under `connectors/` described by one
 * `defineOperator` object (its configuration schema, its LIVE connectors, how its signed callbacks
 * are read, its simulator), listed once in `operators.ts`. See `connectors/README.md`.
 */
import { z } from 'zod';
import type { Clock } from '../domain/clock.ts';
import type { Connector } from './connector.ts';
import type { FetchFn } from './operator-http.ts';
import type { SharedState } from './shared-state.ts';

/** Where a schema's cross-variable checks report a problem (zod's refinement context). */
export type IssueSink = Pick<z.core.$RefinementCtx, 'addIssue'>;

/**
 * An operator's configuration: `env`, the environment variables it reads (each with its format,
 * default and message), and `settingsOf`, which builds its settings from them — null when the
 * operator is not configured — reporting a missing companion variable to `ctx`. `schema` is the
 * two as one zod schema, from which the settings type is inferred (`OperatorSettings`).
 */
export interface OperatorConfig<Shape extends z.ZodRawShape, Settings> {
  env: z.ZodObject<Shape>;
  settingsOf(e: z.output<z.ZodObject<Shape>>, ctx: IssueSink): Settings | null;
  schema: z.ZodType<Settings | null>;
}

/** Builds an `OperatorConfig` from the variables' `shape` and the function making the settings. */
export function operatorConfig<Shape extends z.ZodRawShape, Settings>(
  shape: Shape,
  settingsOf: (e: z.output<z.ZodObject<Shape>>, ctx: IssueSink) => Settings | null,
): OperatorConfig<Shape, Settings> {
  const env = z.object(shape);
  return { env, settingsOf, schema: env.transform((e, ctx) => settingsOf(e, ctx)) };
}

/** The settings an operator's configuration makes when it is configured. */
export type OperatorSettings<C> = C extends OperatorConfig<z.ZodRawShape, infer S> ? S : never;

/**
 * True when every variable of `names` is set in `e`; reports each missing one to `ctx` as
 * "required when `because` is set".
 */
export function requireAll<E extends Record<string, unknown>>(e: E, names: readonly (keyof E & string)[], because: string, ctx: IssueSink): boolean {
  const missing = names.filter((n) => e[n] === undefined);
  for (const n of missing) ctx.addIssue({ code: 'custom', path: [n], message: `required when ${because} is set` });
  return missing.length === 0;
}

/** What the LIVE connectors need besides their settings. */
export interface LiveConnectorDeps {
  fetch: FetchFn;
  clock: Clock;
  uuid: () => string;
  /**
   * State shared by every instance on the database (`connector_state`): the Daraja token and
   * its pauses. Absent (`kolo connectors check`): this process's memory.
   */
  sharedState?: SharedState | undefined;
  warn?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
  /** Per-call timeout (`CONNECTOR_TIMEOUT_MS`), milliseconds. */
  timeoutMs: number;
}

/**
 * A callback URL an operator signs, one per operator (not per transaction):
 * `POST /api/v1/callbacks/<path>`. Refused with 401 unless `problem` finds nothing; a verified
 * body only triggers a status query of the transaction or checkout attempt whose reference it
 * names, on a rail whose code starts with `railPrefix`.
 */
export interface SignedCallback<Settings> {
  path: string;
  /** The header carrying the signature, lower case. */
  signatureHeader: string;
  operationId: string;
  summary: string;
  description: string;
  railPrefix: string;
  /** Why the request is refused (null: its signature verifies). `nowMs`: our clock. */
  problem(settings: Settings | null, signature: string | undefined, raw: Buffer, nowMs: number): string | null;
  /** Our reference the verified body (parsed JSON, or undefined) names, or null. */
  referenceOf(body: unknown): string | null;
}

/** Options of `kolo simulate <command>`; `webhookUrl` only where `hasWebhookUrl`. */
export interface SimulatorOptions {
  port: number;
  host: string;
  decisionDelayMs?: number;
  webhookUrl?: string | undefined;
}

/** A running simulator. */
export interface RunningSimulator {
  url: string;
  close(): Promise<void>;
}

/**
 * How `kolo simulate <command>` starts the operator's simulator. `start` imports it lazily: only
 * `cli/` and tests load simulator code (test/architecture/import-boundaries.test.ts).
 */
export interface SimulatorEntry {
  command: string;
  title: string;
  hasWebhookUrl?: boolean;
  start(options: SimulatorOptions): Promise<RunningSimulator>;
}

/**
 * One operator. `key`: its settings' name in `Config` (null there when not configured).
 * `enabledBy`: the variable that turns it on. `connectors`: its LIVE connectors by the rail code
 * each serves, from its settings (a connector configured for one country never serves another).
 */
export interface Operator<Key extends string = string, Shape extends z.ZodRawShape = z.ZodRawShape, Settings = unknown> {
  key: Key;
  title: string;
  /** The operator's code in the rails it serves (`rails.operator`, e.g. `MPESA`). */
  code: string;
  /**
   * Its segment in the per-transaction callback URLs Kolo gives it,
   * `/api/v1/callbacks/<callbackSegment>/<token>`, unique among operators.
   */
  callbackSegment: string;
  enabledBy: keyof Shape & string;
  config: OperatorConfig<Shape, Settings>;
  connectors(settings: Settings, deps: LiveConnectorDeps): [railCode: string, connector: Connector][];
  signedCallback?: SignedCallback<Settings>;
  simulator: SimulatorEntry;
}

/** Checks an operator's definition against `Operator`, keeping its literal key and types. */
export function defineOperator<const Key extends string, Shape extends z.ZodRawShape, Settings>(
  operator: Operator<Key, Shape, Settings>,
): Operator<Key, Shape, Settings> {
  return operator;
}
