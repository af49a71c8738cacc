/**
 * Orange Money Cameroon with a LIVE key when Orange answers late, badly or not at all, both
 * directions (mp pay-ins, cashin pay-outs): a 500 on `pay` after Orange processed it; a `pay`
 * held past Kolo's timeout, then processed; Orange paying after the rail's deadline (…198); a
 * dropped notification; a duplicated one; an `init` slower than Kolo's timeout (nothing pushed),
 * and a `pay` so slow that Kolo's status query reaches Orange first (Orange still says the
 * payToken is INITIATED: nothing failed nor released, the payment recorded). After each scenario,
 * `kolo ledger verify`'s invariants
 * hold and what the simulator moved equals what the ledger posted on Orange's float, transaction by
 * transaction.
 */
import { startOrangeSimulator } from '../../src/connectors/orange-money/simulator/orange-simulator.ts';
import { NO_LATENCY } from '../../src/connectors/simulator-http.ts';
import { describeAbandonedInitiations, describeCallbackOperatorFaults, SLOW_PRE_STEP_MS, useFaultHarness } from '../helpers/fault-scenarios.ts';
import { orangeEnv, waitUntil } from '../helpers/live.ts';

const f = useFaultHarness({
  startSimulator: () => startOrangeSimulator({ decisionDelayMs: 30 }),
  env: orangeEnv,
  rail: 'ORANGE_MONEY_CM',
  fundingPayer: '237699000900',
});

const transactionOf = (reference: string) => [...f.sim.transactions.values()].find((tx) => tx.orderId === reference);

describeCallbackOperatorFaults(f, {
  product: 'Orange Money',
  operator: 'Orange',
  callbackName: 'notification',
  error500Title: 'a 500 on pay after Orange processed it: PENDING, then SUCCESS by the status query, pay sent once, its txnid kept',
  msisdnPrefix: '23769900',
  decided: (reference) => waitUntil(`Orange to decide ${reference}`, () => transactionOf(reference)?.data.status === 'SUCCESSFULL'),
  initiations: (reference) => f.sim.requests.filter((r) => r.path.endsWith('/pay') && JSON.parse(r.body).orderId === reference),
});

// Orange's step before `pay` is `init` (Kolo's prepare), which yields the payToken.
const slowInit = () => {
  f.sim.options.latencyMs = { ...NO_LATENCY, prepare: SLOW_PRE_STEP_MS };
};

describeAbandonedInitiations(f, {
  product: 'Orange Money',
  msisdnPrefix: '23769900',
  initiations: (reference) => f.sim.requests.filter((r) => r.path.endsWith('/pay') && JSON.parse(r.body).orderId === reference),
  // A payToken is Orange's record of the initiation only once `pay` has named its orderId.
  recorded: (reference) => transactionOf(reference) !== undefined,
  statusQueries: () => f.sim.requests.filter((r) => r.method === 'GET' && r.path.includes('/paymentstatus/')).length,
  paid: (reference) => waitUntil(`Orange to pay ${reference}`, () => transactionOf(reference)?.data.status === 'SUCCESSFULL'),
  slowPreStep: { PAY_IN: slowInit, PAY_OUT: slowInit },
});
