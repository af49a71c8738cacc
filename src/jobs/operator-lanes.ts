/**
 * Operator lanes: the poller's questions to operators, queued per operator so that a slow or
 * failing operator delays only its own questions. Each lane runs at most `concurrency` tasks at
 * once and starts at most `ratePerSecond` a second (a token bucket holding one second's worth);
 * it queues at most `queue` tasks beyond those running, and the poller claims no more work for a
 * full lane. Tasks never throw into the lane: the caller's task handles its own errors.
 */

/** The bounds of every lane. */
export interface LaneLimits {
  /** Tasks running at once per lane. */
  concurrency: number;
  /** Tasks started per second per lane (`Infinity`: no bound). */
  ratePerSecond: number;
  /** Tasks waiting per lane beyond those running. */
  queue: number;
}

interface Waiting {
  run: () => Promise<void>;
  abandon: () => void;
}

interface Lane {
  limits: LaneLimits;
  running: number;
  waiting: Waiting[];
  tokens: number;
  refilledAt: number;
  timer: NodeJS.Timeout | undefined;
}

/** The lanes of one poller (one per operator key, created on first use). */
export class OperatorLanes {
  readonly #limitsOf: (key: string) => LaneLimits;
  readonly #now: () => number;
  readonly #lanes = new Map<string, Lane>();
  #stopped = false;
  #idle: (() => void)[] = [];

  /**
   * `limits`: every lane's bounds, or each lane's by its key. `now`: milliseconds (the token
   * bucket's clock); `Date.now` unless a test gives another.
   */
  constructor(limits: LaneLimits | ((key: string) => LaneLimits), now: () => number = Date.now) {
    this.#limitsOf = typeof limits === 'function' ? limits : () => limits;
    this.#now = now;
  }

  /**
   * Queues `run` on lane `key`; `abandon` is called instead when the lanes stop before it
   * started. Returns false (nothing queued) when the lane is full or the lanes are stopped.
   */
  submit(key: string, run: () => Promise<void>, abandon: () => void = () => {}): boolean {
    if (this.#stopped || this.isFull(key)) return false;
    const lane = this.#lane(key);
    lane.waiting.push({ run, abandon });
    this.#pump(lane);
    return true;
  }

  /** Whether lane `key` holds as many tasks (running and waiting) as it may. */
  isFull(key: string): boolean {
    const lane = this.#lanes.get(key);
    return lane !== undefined && lane.running + lane.waiting.length >= lane.limits.concurrency + lane.limits.queue;
  }

  /** The keys of the full lanes. */
  fullLanes(): string[] {
    return [...this.#lanes.keys()].filter((key) => this.isFull(key));
  }

  /** Tasks running and waiting, per lane key (for metrics and tests). */
  load(): Record<string, { running: number; waiting: number }> {
    return Object.fromEntries([...this.#lanes].map(([key, lane]) => [key, { running: lane.running, waiting: lane.waiting.length }]));
  }

  /**
   * Stops the lanes: nothing more starts, every waiting task is abandoned (its `abandon` called),
   * and the promise resolves once the running tasks have ended.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const lane of this.#lanes.values()) {
      clearTimeout(lane.timer);
      for (const waiting of lane.waiting.splice(0)) waiting.abandon();
    }
    if (this.#running() === 0) return;
    await new Promise<void>((resolve) => this.#idle.push(resolve));
  }

  #running(): number {
    let n = 0;
    for (const lane of this.#lanes.values()) n += lane.running;
    return n;
  }

  #lane(key: string): Lane {
    let lane = this.#lanes.get(key);
    if (!lane) {
      const limits = this.#limitsOf(key);
      lane = { limits, running: 0, waiting: [], tokens: limits.ratePerSecond, refilledAt: this.#now(), timer: undefined };
      this.#lanes.set(key, lane);
    }
    return lane;
  }

  #pump(lane: Lane): void {
    const { concurrency, ratePerSecond } = lane.limits;
    const now = this.#now();
    // An unbounded rate (`Infinity`) never runs out of tokens.
    lane.tokens = Number.isFinite(ratePerSecond) ? Math.min(ratePerSecond, lane.tokens + ((now - lane.refilledAt) / 1000) * ratePerSecond) : Number.POSITIVE_INFINITY;
    lane.refilledAt = now;
    while (!this.#stopped && lane.running < concurrency && lane.waiting.length > 0 && lane.tokens >= 1) {
      lane.tokens -= 1;
      const task = lane.waiting.shift()!;
      lane.running += 1;
      void task.run().finally(() => {
        lane.running -= 1;
        if (this.#stopped) {
          if (this.#running() === 0) for (const resolve of this.#idle.splice(0)) resolve();
        } else this.#pump(lane);
      });
    }
    if (!this.#stopped && lane.waiting.length > 0 && lane.running < concurrency && lane.timer === undefined) {
      // Out of tokens: come back when the next one is there.
      lane.timer = setTimeout(() => {
        lane.timer = undefined;
        this.#pump(lane);
      }, Math.max(1, Math.ceil(((1 - lane.tokens) / ratePerSecond) * 1000)));
    }
  }
}
