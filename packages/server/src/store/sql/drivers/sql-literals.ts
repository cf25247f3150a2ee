/**
 * The store's one SQL literal encoder: values as SQL literals, for the statements that cannot
 * carry parameters — the embedded driver's `EXECUTE name(literal, …)` (PGlite answers a
 * simple-protocol `exec` in a fraction of the time of an extended-protocol `query` with
 * parameters: measured ~90 µs vs ~280 µs for a one-row UPDATE) and the scripts a unit of work
 * sends along with BEGIN and COMMIT (`unit.ts`). Every value becomes a quoted literal of unknown
 * type — resolved by its context exactly as an untyped parameter is; cast it where the context
 * does not say (`${sqlLiteral(bytes)}::bytea` in a select list) — or NULL. A string without a
 * backslash is `'…'` with quotes doubled; one with a backslash is an escape string `E'…'` with
 * backslashes doubled too, so a literal means the same whatever `standard_conforming_strings` is.
 */

/** A string as a quoted literal (`'it''s'`, `E'back\\slash'`). */
function quote(text: string): string {
  if (text.includes('\0')) throw new RangeError('A string sent to the database cannot contain NUL.');
  const quoted = text.replaceAll("'", "''");
  return text.includes('\\') ? `E'${quoted.replaceAll('\\', '\\\\')}'` : `'${quoted}'`;
}

/** One element of an array literal (`{…}`), double-quoted with backslash escapes. */
function element(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return `"${scalarText(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`Not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  throw new TypeError(`Cannot send a ${typeof value} to the database.`);
}

/** The literal for one parameter value. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return quote(`{${value.map(element).join(',')}}`);
  return quote(scalarText(value));
}

/**
 * `text` with `$1…$n` replaced by the literals of `params` (placeholders inside quoted strings,
 * quoted identifiers and dollar-quoted bodies are left alone).
 */
export function inlineParams(text: string, params: readonly unknown[]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      const stop = end < 0 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    if (ch === '$') {
      const placeholder = /^\$(\d+)/.exec(text.slice(i, i + 12));
      if (placeholder) {
        const index = Number(placeholder[1]) - 1;
        if (index < 0 || index >= params.length) throw new RangeError(`No parameter ${placeholder[0]}`);
        out += sqlLiteral(params[index]);
        i += placeholder[0].length;
        continue;
      }
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        const stop = end < 0 ? text.length : end + tag[0].length;
        out += text.slice(i, stop);
        i = stop;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}
