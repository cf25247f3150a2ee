-- kind: expand
--
-- armed fault rules of the test controls (`/_control/faults`) as rows, so a fault armed
-- through one process hits requests on every process sharing the database (the deployment's
-- test state, like the clock offset, suspensions and key standing). `rule` is the normalized
-- `FaultRule` as JSON text; `remaining` counts down once per hit; a spent row (0) is listed no more and deleted by the next hit.

CREATE TABLE leasehold.fault_rules (
  fault_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rule      text NOT NULL,
  remaining integer NOT NULL CHECK (remaining >= 0)
);
