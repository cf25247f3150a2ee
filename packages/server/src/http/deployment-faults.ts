import type { FaultRuleRow, FaultRuleTable } from '../store/operations.js';
import { actionOf, describe, matches, normalizeFaultRule, SeededDraw, type Fault, type FaultAction, type FaultRule, type FaultTarget, type Faults } from './faults.js';

/** How often (ms) a process re-reads the armed rules at most when it believes none are armed. */
export const FAULT_POLL_MS = 100;

/**
 * The settling wait is real time between processes, never a test's fake or gated sleep (those
 * stand for injected latency): the timer functions as this module found them when it loaded.
 */
const realSetTimeout = globalThis.setTimeout;
const settleSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms));

const faultOf = (row: FaultRuleRow): Fault => describe({ id: row.id, rule: row.rule as FaultRule, remaining: row.remaining });

/**
 * Fault rules as deployment state, in the database every process shares (SQL stores): a rule
 * armed through any process hits matching requests on every process, `times` counted across
 * the deployment (each hit is one atomic decrement). Cost: while rules are armed, one statement
 * per matching request; while none are, a process re-reads the (empty) table at most every
 * `FAULT_POLL_MS`, on a request. Arming and clearing answer only after `FAULT_POLL_MS`, so every
 * request sent after the lever answered sees the change, whichever process it reaches.
 * `probability` draws stay per process (seeded).
 */
export class DeploymentFaults implements Faults {
  #rules: FaultRuleRow[] = [];
  /** `performance.now()` of the last read of the table (-Infinity: never). */
  #readAt = Number.NEGATIVE_INFINITY;
  readonly #draw: SeededDraw;

  /** Faults in `table`, drawing probabilities from `seed`. */
  constructor(
    private readonly table: FaultRuleTable,
    seed?: number,
  ) {
    this.#draw = new SeededDraw(seed);
  }

  /** Arms a rule for the deployment. */
  async add(rule: FaultRule): Promise<Fault> {
    const normalized = normalizeFaultRule(rule);
    const row = await this.table.add(normalized as unknown as Record<string, unknown>, normalized.times);
    await this.#settle();
    return faultOf(row);
  }

  /** Disarms every rule of the deployment. */
  async clear(): Promise<number> {
    const count = await this.table.clear();
    await this.#settle();
    return count;
  }

  /** The deployment's armed rules. */
  async list(): Promise<Fault[]> {
    return (await this.#read()).map(faultOf);
  }

  /** True while this process read no armed rule less than `FAULT_POLL_MS` ago. */
  get idle(): boolean {
    return this.#rules.length === 0 && performance.now() - this.#readAt < FAULT_POLL_MS;
  }

  /** Consumes the rules that hit this request (one statement when one matches). */
  async take(target: FaultTarget): Promise<FaultAction | undefined> {
    const rules = performance.now() - this.#readAt < FAULT_POLL_MS ? this.#rules : await this.#read();
    const candidates = rules.filter((row) => matches(row.rule as FaultRule, target) && this.#draw.hits((row.rule as FaultRule).probability));
    if (candidates.length === 0) return undefined;
    const hitIds = new Set(await this.table.hit(candidates.map((row) => row.id)));
    const hit = candidates.filter((row) => hitIds.has(row.id));
    // A candidate not hit was spent or cleared by another process: read the table afresh next time.
    if (hitIds.size < candidates.length) this.#readAt = Number.NEGATIVE_INFINITY;
    return actionOf(hit.map((row) => row.rule as FaultRule));
  }

  async #read(): Promise<FaultRuleRow[]> {
    const startedAt = performance.now();
    this.#rules = await this.table.list();
    this.#readAt = startedAt;
    return this.#rules;
  }

  /** Re-read, then wait one poll period so every process's view includes the change. */
  async #settle(): Promise<void> {
    await this.#read();
    await settleSleep(FAULT_POLL_MS);
  }
}
