import { InvalidArgumentError } from '../core/errors/invalid-argument-error.js';

/** Edit distance (insertions, deletions, substitutions; case-insensitive) between two short names. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[y.length] ?? 0;
}

/**
 * The known name closest to `name`: the one it is a prefix or extension of (`retries` →
 * `maxRetries`), else the nearest by edit distance when that is at most a third of its length
 * (a typo); `undefined` when nothing is close.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const containing = known.filter((candidate) => lower.length >= 3 && (candidate.toLowerCase().includes(lower) || lower.includes(candidate.toLowerCase())));
  if (containing.length > 0) return containing.reduce((best, c) => (distance(name, c) < distance(name, best) ? c : best));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= Math.max(1, Math.floor(Math.max(name.length, 3) / 3)) ? best : undefined;
}

/**
 * Refuses a key of `value` that is not one of `known` (a typo, an option of another SDK), with
 * an {@link InvalidArgumentError} naming it and the nearest valid name. `where` prefixes the
 * names (`renewal.`); `owner` starts the message.
 */
export function checkKnownKeys(value: object, known: readonly string[], owner: string, where = ''): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const nearest = nearestName(key, known);
    const hint = nearest === undefined ? `valid ones: ${known.join(', ')}` : `did you mean ${where}${nearest}?`;
    throw new InvalidArgumentError(`${where}${key}`, `${owner}: unknown option ${where}${key} (${hint}).`);
  }
}
