import { operationList, type ApiOperationId } from '@leasehold/protocol';

/** An operationId of the Leasehold API (`heartbeatClaims`, `acquireSpaceClaim`, ...); the `/_control` operations, which faults never hit, are left out. */
export type LeaseholdOperationId = ApiOperationId;

/** Every operationId a fault can target, in spec order. */
const API_OPERATION_IDS: readonly string[] = operationList.filter((operation) => !operation.control).map((operation) => operation.operationId);
const CONTROL_OPERATION_IDS = new Set<string>(operationList.filter((operation) => operation.control).map((operation) => operation.operationId));

/** Edit distance (insertions, deletions, substitutions), case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[y.length] ?? 0;
}

/** The operationIds closest to `value` (at most three, within half its length), nearest first. */
export function nearestOperationIds(value: string): string[] {
  const limit = Math.max(3, Math.ceil(value.length / 2));
  return API_OPERATION_IDS.map((id) => ({ id, d: distance(value, id) }))
    .filter((candidate) => candidate.d <= limit)
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((candidate) => candidate.id);
}

/**
 * Refuses at once an operationId the API does not have (a fault armed on it would never fire),
 * naming the nearest valid ones and listing them all.
 * @example
 * requireOperationId('acquireClaim', 'failNext'); // RangeError: failNext: unknown operation 'acquireClaim' — did you mean 'acquireSpaceClaim'? …
 */
export function requireOperationId(value: unknown, lever: string): asserts value is LeaseholdOperationId {
  if (typeof value === 'string' && API_OPERATION_IDS.includes(value)) return;
  const shown = typeof value === 'string' ? `'${value}'` : String(value);
  if (typeof value === 'string' && CONTROL_OPERATION_IDS.has(value)) {
    throw new RangeError(`${lever}: ${shown} is a /_control operation, which faults never hit; target an API operation (${API_OPERATION_IDS.join(', ')})`);
  }
  const nearest = typeof value === 'string' ? nearestOperationIds(value) : [];
  const hint = nearest.length > 0 ? ` — did you mean ${nearest.map((id) => `'${id}'`).join(' or ')}?` : '';
  throw new RangeError(`${lever}: unknown operation ${shown}${hint} (the operationIds of the Leasehold API: ${API_OPERATION_IDS.join(', ')})`);
}
