-- kind: expand
-- replaces: message_counted
--
-- 0014: a queue's activity counters no longer serialize the queue's writers (docs/storage.md,
-- "Speed: the queue"). Every send and every removal of a message added 1 to the ONE
-- `queue_samples` row of its queue and 10-second bucket, so concurrent sends and acks of a queue
-- waited, each on that row, for the transaction before it to commit: with 8 workers the trigger's
-- upserts were ~0.86 ms of the ~3.6 ms each job cost PostgreSQL, the largest single item.
-- The trigger now counts into `queue_tallies`: one row per queue, bucket and slot, the slot taken
-- from the writing connection (`pg_backend_pid() % 16`), so writers on different connections
-- (a pool's, or another process's) rarely share a row; readers sum a bucket's slots; a slot's
-- first count in a bucket forgets that slot's rows of 10 minutes ago (the sweep forgets them
-- too), so the table stays bounded without this build's sweep. This build counts discards
-- there too. `queue_samples` stays, read as well: builds before 0014 count their discards into
-- it. Those builds read only `queue_samples`, so while one runs beside this build during a
-- rolling upgrade, its activity charts leave out the sends and removals counted here
-- (statistics only: no message, lease or answer depends on them).

CREATE TABLE leasehold.queue_tallies (
  queue_id   bigint NOT NULL,
  bucket     bigint NOT NULL,
  slot       smallint NOT NULL,
  sent       integer NOT NULL DEFAULT 0,
  removed    integer NOT NULL DEFAULT 0,
  discarded  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, bucket, slot)
);
CREATE INDEX queue_tallies_bucket ON leasehold.queue_tallies (bucket);

-- The slot a count of this connection goes to (the trigger's and the discard's one rule).
CREATE FUNCTION leasehold.tally_slot() RETURNS smallint LANGUAGE sql STABLE AS $$ SELECT (pg_backend_pid() % 16)::smallint $$;

CREATE OR REPLACE FUNCTION leasehold.message_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_slot smallint := leasehold.tally_slot();
  v_queue bigint;
  v_bucket bigint;
  v_first boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    v_queue := NEW.queue_id;
    v_bucket := NEW.sent_at / 10000;
    INSERT INTO leasehold.queue_tallies AS s (queue_id, bucket, slot, sent) VALUES (v_queue, v_bucket, v_slot, 1)
    ON CONFLICT (queue_id, bucket, slot) DO UPDATE SET sent = s.sent + 1
    RETURNING (s.xmax = 0) INTO v_first;
  ELSE
    v_queue := OLD.queue_id;
    v_bucket := leasehold.now_ms() / 10000;
    INSERT INTO leasehold.queue_tallies AS s (queue_id, bucket, slot, removed) VALUES (v_queue, v_bucket, v_slot, 1)
    ON CONFLICT (queue_id, bucket, slot) DO UPDATE SET removed = s.removed + 1
    RETURNING (s.xmax = 0) INTO v_first;
  END IF;
  -- A slot's first count in a bucket forgets that slot's buckets of 10 minutes ago and more (no
  -- reader looks that far back), so the table stays bounded where no sweep of this build runs:
  -- beside builds before 0014 only, or after their binaries were rolled back onto this schema.
  IF v_first THEN
    DELETE FROM leasehold.queue_tallies WHERE queue_id = v_queue AND slot = v_slot AND bucket <= v_bucket - 60;
  END IF;
  RETURN NULL;
END
$$;
