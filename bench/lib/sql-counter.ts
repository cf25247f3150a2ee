/**
 * Counting what a store sends to its database: the drivers' `onQuery` hook sees every query
 * message (one round trip each; BEGIN and COMMIT included), and `statementsIn` counts the SQL
 * statements in it (a script of several is one message, several statements).
 */

/** Round trips and statements seen while one operation ran. */
export interface QueryCount {
  roundTrips: number;
  statements: number;
  /** The first words of each message, in order (for notes: `BEGIN`, `SELECT leasehold.…`). */
  shapes: string[];
}

/** The number of SQL statements in `text` (semicolons outside quotes, identifiers and `$$` bodies). */
export function statementsIn(text: string): number {
  let count = 0;
  let content = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      i = end < 0 ? text.length : end + 1;
      content = true;
      continue;
    }
    if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(text.slice(i));
      if (tag) {
        const end = text.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? text.length : end + tag[0].length;
        content = true;
        continue;
      }
    }
    if (ch === ';') {
      if (content) count++;
      content = false;
    } else if (!/\s/.test(ch)) content = true;
    i++;
  }
  return count + (content ? 1 : 0);
}

function shapeOf(text: string): string {
  const flat = text.trim().replace(/\s+/g, ' ');
  const call = /^SELECT .*?leasehold\.([a-z_]+)\(/.exec(flat);
  if (call) return `SELECT ${call[1]}()`;
  return flat.split(' ').slice(0, 2).join(' ').replace(/[,(]$/, '');
}

/** A counter to hand to a driver as `onQuery`: it counts only inside `measure` (it costs nothing in the timed loops). */
export class QueryCounter {
  roundTrips = 0;
  statements = 0;
  #shapes: string[] | undefined;

  /** The hook (bound). */
  readonly onQuery = (text: string): void => {
    if (this.#shapes === undefined) return;
    this.roundTrips++;
    this.statements += statementsIn(text);
    this.#shapes.push(shapeOf(text));
  };

  /** What `fn` sent, alone (nothing else may run on the store meanwhile). */
  async measure(fn: () => Promise<unknown>): Promise<QueryCount> {
    const trips = this.roundTrips;
    const statements = this.statements;
    this.#shapes = [];
    try {
      await fn();
      return { roundTrips: this.roundTrips - trips, statements: this.statements - statements, shapes: this.#shapes };
    } finally {
      this.#shapes = undefined;
    }
  }
}
