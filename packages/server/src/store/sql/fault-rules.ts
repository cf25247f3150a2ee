import type { FaultRuleRow, FaultRuleTable } from '../operations.js';
import type { SqlSession } from './driver.js';

interface Row {
  fault_id: number;
  rule: string;
  remaining: number;
}

const rowOf = (row: Row): FaultRuleRow => ({ id: `flt_${row.fault_id}`, rule: JSON.parse(row.rule) as Record<string, unknown>, remaining: row.remaining });
const idOf = (id: string): number => Number(id.slice('flt_'.length));

/**
 * The fault rules in the database (`leasehold.fault_rules`, migration 0007): every process
 * sharing it sees the same armed rules, and a hit is one atomic decrement, so `times: 3` fails
 * three requests in the whole deployment, whichever processes they reach.
 */
export function sqlFaultRules(session: SqlSession): FaultRuleTable {
  return {
    async add(rule, times) {
      const { rows } = await session.query<Row>('INSERT INTO leasehold.fault_rules (rule, remaining) VALUES ($1, $2) RETURNING *', [
        JSON.stringify(rule),
        times,
      ]);
      return rowOf(rows[0] as Row);
    },
    async clear() {
      const { rows } = await session.query<{ armed: number }>(
        'WITH d AS (DELETE FROM leasehold.fault_rules RETURNING remaining) SELECT count(*) FILTER (WHERE remaining > 0)::int AS armed FROM d',
      );
      return rows[0]?.armed ?? 0;
    },
    async list() {
      return (await session.query<Row>('SELECT * FROM leasehold.fault_rules WHERE remaining > 0 ORDER BY fault_id')).rows.map(rowOf);
    },
    async hit(ids) {
      if (ids.length === 0) return [];
      const { rows } = await session.query<{ fault_id: number }>(
        // Rows spent by earlier hits go in the same statement (a row cannot be updated and deleted in one).
        `WITH spent AS (DELETE FROM leasehold.fault_rules WHERE remaining = 0),
         hit AS (
           UPDATE leasehold.fault_rules SET remaining = remaining - 1
            WHERE fault_id = ANY($1::bigint[]) AND remaining > 0 RETURNING fault_id)
         SELECT fault_id FROM hit ORDER BY fault_id`,
        [ids.map(idOf)],
      );
      return rows.map((row) => `flt_${row.fault_id}`);
    },
  };
}
