/**
 * The operators Kolo speaks to, one line each. Configuration (`config.ts`), the LIVE connectors
 * (`live-connectors.ts`), the callback routes and URLs (`http/routes/callbacks.ts`,
 * `callbackSegmentOf`) and `kolo simulate` all iterate this list: adding an operator is its folder plus one line here
 * (`connectors/README.md`).
 */
import type { Operator, OperatorSettings } from './operator.ts';
import { mtnMomo } from './mtn-momo/mtn-momo-operator.ts';
import { orangeMoney } from './orange-money/orange-money-operator.ts';
import { mpesa } from './mpesa/mpesa-operator.ts';
import { wave } from './wave/wave-operator.ts';
import { airtelMoney } from './airtel-money/airtel-money-operator.ts';
import { orangeWebpay } from './orange-webpay/orange-webpay-operator.ts';

/** Every operator, in the order their variables are documented and checked. */
export const OPERATORS = [mtnMomo, orangeMoney, mpesa, wave, airtelMoney, orangeWebpay] as const;

type Registered = (typeof OPERATORS)[number];

/** The name of an operator's settings in `Config`. */
export type OperatorKey = Registered['key'];

/** Each operator's settings by key, null when it is not configured. */
export type OperatorsConfig = { [O in Registered as O['key']]: OperatorSettings<O['config']> | null };

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every operator's environment variables, as one zod shape. */
export type OperatorsEnvShape = UnionToIntersection<Registered['config']['env']['shape']>;

/** The operators' variables, for `config.ts` to compose with its own (names are unique: checked there). */
export const operatorsEnvShape = Object.assign({}, ...OPERATORS.map((o) => o.config.env.shape)) as OperatorsEnvShape;

/**
 * The operators with their types erased to `Operator`, for code that iterates them. Sound as
 * long as each operator's functions get the settings its own `config` made (`config[o.key]`).
 */
export const operators: readonly Operator[] = OPERATORS as unknown as readonly Operator[];

/**
 * The segment of the rails' operator `code` (`rails.operator`) in per-transaction callback URLs,
 * `/api/v1/callbacks/<segment>/<token>`: its definition's `callbackSegment` (`MPESA` → `daraja`);
 * for a code no definition has (rails only the sandbox serves, `SANDBOX`), the code in lower
 * case with `-` for `_` (`MOOV_MONEY` → `moov-money`).
 */
export function callbackSegmentOf(code: string): string {
  return operators.find((o) => o.code === code)?.callbackSegment ?? code.toLowerCase().replace(/_/g, '-');
}
