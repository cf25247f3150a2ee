-- kind: expand
--
-- 0012: the task lifecycle. Each task counts its attempts (every claim is one) and remembers its
-- last claim — id, session, start — and, once a write ended it, how (`completed`, `released`,
-- `revoked`) and when. A claim nobody ended is judged by its lease row (live, or `expired` at
-- its expiry); the sweep writes that judgement here before it forgets the lease, so a task
-- remembers an expired claim for good. Existing tasks take their latest remembered claim.

ALTER TABLE leasehold.tasks
  ADD COLUMN attempts              integer NOT NULL DEFAULT 0,
  ADD COLUMN last_claim_id         text,
  ADD COLUMN last_claim_session    text,
  ADD COLUMN last_claim_started_at bigint,
  ADD COLUMN last_claim_outcome    text CHECK (last_claim_outcome IN ('completed', 'released', 'expired', 'revoked')),
  ADD COLUMN last_claim_ended_at   bigint;

UPDATE leasehold.tasks t
   SET attempts = c.n, last_claim_id = c.claim_id, last_claim_session = c.holder_session, last_claim_started_at = c.acquired_at
  FROM (SELECT DISTINCT ON (account_id, task_id) account_id, task_id, claim_id, holder_session, acquired_at,
               count(*) OVER (PARTITION BY account_id, task_id) AS n
          FROM leasehold.leases WHERE kind = 'task' ORDER BY account_id, task_id, lease_id DESC) c
 WHERE t.account_id = c.account_id AND t.task_id = c.task_id;

UPDATE leasehold.tasks t
   SET last_claim_outcome = CASE WHEN t.status = 'Done' THEN 'completed' ELSE 'released' END, last_claim_ended_at = l.ended_at
  FROM leasehold.leases l
 WHERE l.claim_id = t.last_claim_id AND l.status = 'released';
