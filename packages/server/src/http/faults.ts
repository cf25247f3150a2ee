import type { components } from '@leasehold/protocol';

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

interface ArmedFault {
  id: string;
  rule: FaultRule;
  remaining: number;
}

/** The request attributes a rule can match on. */
export interface FaultTarget {
  operationId: string;
  method: string;
  path: string;
}

/**
 * Fault rules for the next N matching requests. Rules apply in the order they were added;
 * a request collects the latency of every matching rule and the first status or drop.
 * `probability` draws from a seeded generator so runs are reproducible.
 */
export class FaultInjector {
  private faults: ArmedFault[] = [];
  private nextId = 1;
  private seed: number;

  /** Creates an injector whose probabilistic rules draw from `seed`. */
  constructor(seed = 0x5eed) {
    this.seed = seed >>> 0 || 1;
  }

  /** Arms a rule and returns it as the spec's `Fault`. */
  add(rule: FaultRule): Fault {
    const armed: ArmedFault = { id: `flt_${this.nextId++}`, rule: { ...rule }, remaining: rule.times };
    this.faults.push(armed);
    return this.describe(armed);
  }

  /** Removes every rule; returns how many were still armed. */
  clear(): number {
    const count = this.faults.length;
    this.faults = [];
    return count;
  }

  /** The armed rules. */
  list(): Fault[] {
    return this.faults.map((f) => this.describe(f));
  }

  /** How many rules are armed (0: `take` has nothing to do). */
  get size(): number {
    return this.faults.length;
  }

  /** Consumes the rules that hit this request and says what to do. */
  take(target: FaultTarget): FaultAction | undefined {
    if (this.faults.length === 0) return undefined;
    let action: FaultAction | undefined;
    for (const fault of this.faults) {
      if (!matches(fault.rule, target)) continue;
      if (fault.rule.probability !== undefined && fault.rule.probability < 1 && this.random() >= fault.rule.probability) continue;
      fault.remaining -= 1;
      action ??= { latencyMs: 0, dropResponse: false };
      action.latencyMs += fault.rule.latencyMs ?? 0;
      if (action.status === undefined && !action.dropResponse) {
        if (fault.rule.status !== undefined) {
          action.status = fault.rule.status;
          if (fault.rule.retryAfterSeconds !== undefined) action.retryAfterSeconds = fault.rule.retryAfterSeconds;
        } else if (fault.rule.dropResponse) {
          action.dropResponse = true;
        }
      }
    }
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return action;
  }

  private describe(fault: ArmedFault): Fault {
    return { object: 'fault', id: fault.id, remaining: fault.remaining, rule: { ...fault.rule } };
  }

  /** mulberry32: small, fast and reproducible. */
  private random(): number {
    let t = (this.seed += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

function matches(rule: FaultRule, target: FaultTarget): boolean {
  if (rule.operationId !== undefined && rule.operationId !== target.operationId) return false;
  if (rule.method !== undefined && rule.method.toUpperCase() !== target.method) return false;
  if (rule.pathPrefix !== undefined && !target.path.startsWith(rule.pathPrefix)) return false;
  return true;
}
