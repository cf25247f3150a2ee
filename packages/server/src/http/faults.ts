import type { components } from '@leasehold/protocol';
import type { MaybePromise } from '../store/operations.js';

/** A fault rule as the spec's `FaultRule` schema describes it. */
export type FaultRule = components['schemas']['FaultRule'];
/** An armed fault rule with its id and how many hits it has left. */
export type Fault = components['schemas']['Fault'];

/** What the pipeline must do to one request because of a fault. */
export interface FaultAction {
  status?: number;
  retryAfterSeconds?: number;
  latencyMs: number;
  dropResponse: boolean;
}

/** The request attributes a rule can match on. */
export interface FaultTarget {
  operationId: string;
  method: string;
  path: string;
}

/**
 * Where a server's armed faults live: this process (`FaultInjector`, the memory store) or the
 * database every process shares (`DeploymentFaults`, SQL stores). One set of options and
 * defaults for every way of arming one (`normalizeFaultRule`).
 */
export interface Faults {
  /** Arms a rule (normalized first) and returns it as the spec's `Fault`. */
  add(rule: FaultRule): MaybePromise<Fault>;
  /** Removes every rule; returns how many were still armed. */
  clear(): MaybePromise<number>;
  /** The armed rules. */
  list(): MaybePromise<Fault[]>;
  /** True when no rule can hit a request now (answered without waiting: the step skips `take`). */
  readonly idle: boolean;
  /** Consumes the rules that hit this request and says what to do. */
  take(target: FaultTarget): MaybePromise<FaultAction | undefined>;
}

/** A fault rule that breaks the options' rules (the HTTP edge answers 400 `invalid_request`). */
export class InvalidFaultRuleError extends RangeError {
  /** `message` names the bad option; `param` is it. */
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
    this.name = 'InvalidFaultRuleError';
  }
}

/** The statuses whose answers carry `Retry-After` (the API's own 429 and 503 do). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The one owner of fault options and defaults, for `/_control/faults`, `server.control.injectFault`
 * and `@leasehold/msw`'s `scenario.failNext`/`addLatency`/`dropNextResponse` alike: `times` a
 * positive integer; `status` 400–599; `Retry-After` defaults to 1 s for 429 and 503 (as the
 * API's own answers) and is refused for any other status; `probability` 0–1; `latencyMs` 0–600,000.
 * @example
 * normalizeFaultRule({ operationId: 'heartbeatClaims', status: 503, times: 1 }); // retryAfterSeconds: 1
 */
export function normalizeFaultRule(rule: FaultRule): FaultRule {
  const bad = (param: string, message: string): never => {
    throw new InvalidFaultRuleError(message, param);
  };
  if (!Number.isInteger(rule.times) || rule.times < 1 || rule.times > 1_000_000) bad('times', `times must be an integer 1–1000000, got ${rule.times}`);
  const out: FaultRule = { ...rule };
  if (rule.status !== undefined) {
    if (!Number.isInteger(rule.status) || rule.status < 400 || rule.status > 599) bad('status', `status must be an error status (400–599), got ${rule.status}`);
    if (RETRY_AFTER_STATUSES.has(rule.status)) out.retryAfterSeconds = rule.retryAfterSeconds ?? 1;
    else if (rule.retryAfterSeconds !== undefined) bad('retryAfterSeconds', `Retry-After applies to 429 and 503 only, not ${rule.status}`);
  } else if (rule.retryAfterSeconds !== undefined) {
    bad('retryAfterSeconds', 'retryAfterSeconds needs a status (429 or 503)');
  }
  if (out.retryAfterSeconds !== undefined && (!Number.isInteger(out.retryAfterSeconds) || out.retryAfterSeconds < 1 || out.retryAfterSeconds > 3600)) {
    bad('retryAfterSeconds', `retryAfterSeconds must be a whole number of seconds 1–3600, got ${out.retryAfterSeconds}`);
  }
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) bad('probability', `probability must lie in 0–1, got ${rule.probability}`);
  if (rule.latencyMs !== undefined && (!Number.isInteger(rule.latencyMs) || rule.latencyMs < 0 || rule.latencyMs > 600_000)) {
    bad('latencyMs', `latencyMs must be an integer 0–600000, got ${rule.latencyMs}`);
  }
  return out;
}

/** Whether `rule` matches the request. */
export function matches(rule: FaultRule, target: FaultTarget): boolean {
  if (rule.operationId !== undefined && rule.operationId !== target.operationId) return false;
  if (rule.method !== undefined && rule.method.toUpperCase() !== target.method) return false;
  if (rule.pathPrefix !== undefined && !target.path.startsWith(rule.pathPrefix)) return false;
  return true;
}

/** What the rules that hit a request do, in the order they were armed: every latency, the first status or drop. */
export function actionOf(hit: readonly FaultRule[]): FaultAction | undefined {
  let action: FaultAction | undefined;
  for (const rule of hit) {
    action ??= { latencyMs: 0, dropResponse: false };
    action.latencyMs += rule.latencyMs ?? 0;
    if (action.status === undefined && !action.dropResponse) {
      if (rule.status !== undefined) {
        action.status = rule.status;
        if (rule.retryAfterSeconds !== undefined) action.retryAfterSeconds = rule.retryAfterSeconds;
      } else if (rule.dropResponse) {
        action.dropResponse = true;
      }
    }
  }
  return action;
}

/** mulberry32 over a seed: small, fast and reproducible draws for `probability`. */
export class SeededDraw {
  #seed: number;
  /** Draws from `seed`. */
  constructor(seed = 0x5eed) {
    this.#seed = seed >>> 0 || 1;
  }
  /** Whether a rule with `probability` hits this time. */
  hits(probability: number | undefined): boolean {
    return probability === undefined || probability >= 1 || this.next() < probability;
  }
  /** The next draw in [0, 1). */
  next(): number {
    let t = (this.#seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

interface ArmedFault {
  id: string;
  rule: FaultRule;
  remaining: number;
}

/**
 * Fault rules in this process's memory (the memory store's deployment is this process): rules
 * for the next N matching requests, applied in the order they were added; a request collects
 * the latency of every matching rule and the first status or drop. `probability` draws from a
 * seeded generator so runs are reproducible.
 */
export class FaultInjector implements Faults {
  private faults: ArmedFault[] = [];
  private nextId = 1;
  private readonly draw: SeededDraw;

  /** Creates an injector whose probabilistic rules draw from `seed`. */
  constructor(seed = 0x5eed) {
    this.draw = new SeededDraw(seed);
  }

  /** Arms a rule and returns it as the spec's `Fault`. */
  add(rule: FaultRule): Fault {
    const normalized = normalizeFaultRule(rule);
    const armed: ArmedFault = { id: `flt_${this.nextId++}`, rule: normalized, remaining: normalized.times };
    this.faults.push(armed);
    return describe(armed);
  }

  /** Removes every rule; returns how many were still armed. */
  clear(): number {
    const count = this.faults.length;
    this.faults = [];
    return count;
  }

  /** The armed rules. */
  list(): Fault[] {
    return this.faults.map(describe);
  }

  /** True when no rule is armed. */
  get idle(): boolean {
    return this.faults.length === 0;
  }

  /** How many rules are armed. */
  get size(): number {
    return this.faults.length;
  }

  /** Consumes the rules that hit this request and says what to do. */
  take(target: FaultTarget): FaultAction | undefined {
    if (this.faults.length === 0) return undefined;
    const hit: FaultRule[] = [];
    for (const fault of this.faults) {
      if (!matches(fault.rule, target) || !this.draw.hits(fault.rule.probability)) continue;
      fault.remaining -= 1;
      hit.push(fault.rule);
    }
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return actionOf(hit);
  }
}

/** An armed rule as the spec's `Fault`. */
export function describe(fault: { id: string; rule: FaultRule; remaining: number }): Fault {
  return { object: 'fault', id: fault.id, remaining: fault.remaining, rule: { ...fault.rule } };
}
