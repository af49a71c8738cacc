/**
 * Orange Money Cameroon with a LIVE key when Orange answers late, badly or not at all, both
 * directions (mp pay-ins, cashin pay-outs): a 500 on `pay` after Orange processed it; a `pay`
 * held past Kolo's timeout, then processed; Orange paying after the rail's deadline (…198); a
 * dropped notification; a duplicated one. After each scenario, `kolo ledger verify`'s invariants
 * hold and what the simulator moved equals what the ledger posted on Orange's float, transaction by
 * transaction.
 */
import { startOrangeSimulator } from '../../src/simulators/orange-money/orange-simulator.ts';
import { describeCallbackOperatorFaults, useFaultHarness } from '../helpers/fault-scenarios.ts';
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
