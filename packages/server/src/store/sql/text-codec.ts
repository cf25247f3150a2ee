import type { SqlResult, SqlSession } from './driver.js';
import type { SingleStatement } from './single-statement.js';

/**
 * PostgreSQL `text` cannot hold U+0000, which the API accepts in keys, holders and other
 * strings. Strings cross into SQL escaped — U+0000 → U+FFFF '0', U+FFFF → U+FFFF U+FFFF — and
 * come back unescaped: an injective, prefix-preserving code, so equality, uniqueness and
 * prefixes mean in SQL what they mean to the engine (order is the `sort_key` bytea, computed
 * from the original string).
 */
const ESC = '\uffff';

/** A string as SQL stores it. */
export function escapeText(value: string): string {
  if (!value.includes('\u0000') && !value.includes(ESC)) return value;
  let out = '';
  for (const c of value) out += c === '\u0000' ? `${ESC}0` : c === ESC ? ESC + ESC : c;
  return out;
}

/** A string as SQL stored it, back to the original. */
export function unescapeText(value: string): string {
  if (!value.includes(ESC)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === ESC && i + 1 < value.length) {
      const next = value[++i];
      out += next === '0' ? '\u0000' : next;
    } else out += c;
  }
  return out;
}

function escapeParam(value: unknown): unknown {
  if (typeof value === 'string') return escapeText(value);
  if (Array.isArray(value)) return value.map(escapeParam);
  return value;
}

function unescapeValue(value: unknown): unknown {
  if (typeof value === 'string') return unescapeText(value);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(unescapeValue);
  // A copy only when a value changes (rarely: a string holding U+0000 or U+FFFF), so a heartbeat's
  // 10,000 rows are not each rebuilt.
  let out: Record<string, unknown> | undefined;
  for (const key in value) {
    const inner = (value as Record<string, unknown>)[key];
    const plain = unescapeValue(inner);
    if (plain !== inner) (out ??= { ...(value as Record<string, unknown>) })[key] = plain;
  }
  return out ?? value;
}

/** `session` with every string parameter escaped and every string of every row unescaped. */
export function textCodecSession<S extends SqlSession>(session: S): S {
  const query = async <T>(text: string, params?: readonly unknown[]): Promise<SqlResult<T>> => {
    const result = await session.query<T>(text, params?.map(escapeParam));
    return { ...result, rows: result.rows.map((row) => unescapeValue(row) as T) };
  };
  return new Proxy(session, { get: (target, name, receiver) => (name === 'query' ? query : Reflect.get(target, name, receiver)) });
}

/** A one-statement call with its string arguments escaped and its answer unescaped, as `textCodecSession` does for statements. */
export function textCodecSingle(single: <T>(call: SingleStatement) => Promise<T | undefined>): <T>(call: SingleStatement) => Promise<T | undefined> {
  return async <T>(call: SingleStatement): Promise<T | undefined> => {
    const answer = await single<T>({ ...call, args: call.args.map(escapeParam) });
    return answer === undefined ? undefined : (unescapeValue(answer) as T);
  };
}
