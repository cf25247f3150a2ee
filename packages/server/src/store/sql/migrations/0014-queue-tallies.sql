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
-- (a pool's, or another process's) rarely share a row; readers sum a bucket's slots. This
-- build counts discards there too. `queue_samples` stays, read as well: builds before 0014 count
-- their discards into it. Those builds read only `queue_samples`, so while one runs beside this
-- build during a rolling upgrade, its activity charts leave out the sends and removals counted
-- here (statistics only: no message, lease or answer depends on them).

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

CREATE OR REPLACE FUNCTION leasehold.message_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO leasehold.queue_tallies AS s (queue_id, bucket, slot, sent) VALUES (NEW.queue_id, NEW.sent_at / 10000, pg_backend_pid() % 16, 1)
    ON CONFLICT (queue_id, bucket, slot) DO UPDATE SET sent = s.sent + 1;
  ELSE
    INSERT INTO leasehold.queue_tallies AS s (queue_id, bucket, slot, removed) VALUES (OLD.queue_id, leasehold.now_ms() / 10000, pg_backend_pid() % 16, 1)
    ON CONFLICT (queue_id, bucket, slot) DO UPDATE SET removed = s.removed + 1;
  END IF;
  RETURN NULL;
END
$$;
