-- kind: expand
--
-- what the activity views read (docs/storage.md, "Activity"). `lease_events`: every grant,
-- release, expiry and loss, written by a trigger on `leases` (so every path records them: the
-- functions, the sweep, the controls), kept 10 minutes; a lease ends once (`end_lease_id` is
-- unique), so an expiry the reads record before the row itself changes is never recorded twice.
-- `queue_samples`: sends and removals per queue and 10-second bucket, written by a trigger on
-- `messages` (discards counted by the discard itself). `session_heartbeats`: batch heartbeats per
-- account, holder session and 10-second bucket. The sweep forgets all three after 10 minutes.

CREATE TABLE leasehold.lease_events (
  event_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id     text NOT NULL,
  recorded_at    bigint NOT NULL,
  end_lease_id   bigint UNIQUE,
  type           text NOT NULL CHECK (type IN ('granted', 'released', 'expired', 'lost')),
  kind           text NOT NULL,
  at             bigint NOT NULL,
  claim_id       text NOT NULL,
  holder         text,
  holder_session text,
  fence          bigint,
  space_id       text,
  key            text,
  scope_id       text,
  task_id        bigint,
  spool          text,
  queue          text,
  reason         text
);
CREATE INDEX lease_events_of_account ON leasehold.lease_events (account_id, event_id);
CREATE INDEX lease_events_recorded ON leasehold.lease_events (recorded_at);

-- One event of lease l: its spool and queue looked up from its message (spool leases).
CREATE FUNCTION leasehold.record_lease_event(l leasehold.leases, p_type text, p_at bigint, p_reason text, p_ends boolean)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_spool text;
  v_queue text;
BEGIN
  IF l.kind = 'spool' THEN
    SELECT q.spool, q.name INTO v_spool, v_queue
      FROM leasehold.messages m JOIN leasehold.queues q ON q.queue_id = m.queue_id WHERE m.message_id = l.message_id;
  END IF;
  INSERT INTO leasehold.lease_events (account_id, recorded_at, end_lease_id, type, kind, at, claim_id, holder, holder_session,
                                      fence, space_id, key, scope_id, task_id, spool, queue, reason)
  VALUES (l.account_id, leasehold.now_ms(), CASE WHEN p_ends THEN l.lease_id END, p_type, l.kind, p_at, l.claim_id, l.holder,
          l.holder_session, l.fence, l.space_id, l.key, l.scope_id, l.task_id, v_spool, v_queue, p_reason)
  ON CONFLICT (end_lease_id) DO NOTHING;
END
$$;

CREATE FUNCTION leasehold.lease_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- A settled spool lease (ack, nack) is deleted while held; tombstones are just forgotten.
    IF OLD.status = 'held' AND (OLD.expires_at IS NULL OR OLD.expires_at > leasehold.now_ms()) THEN
      PERFORM leasehold.record_lease_event(OLD, 'released', leasehold.now_ms(), NULL, true);
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.status IS NOT DISTINCT FROM OLD.status THEN
    RETURN NULL;
  END IF;
  IF NEW.status = 'held' THEN
    PERFORM leasehold.record_lease_event(NEW, 'granted', coalesce(NEW.acquired_at, leasehold.now_ms()), NULL, false);
  ELSIF NEW.status = 'released' THEN
    PERFORM leasehold.record_lease_event(NEW, 'released', coalesce(NEW.ended_at, leasehold.now_ms()), NULL, true);
  ELSIF NEW.status = 'lost' THEN
    PERFORM leasehold.record_lease_event(NEW, CASE WHEN NEW.lost_reason IN ('expired', 'lapsed') THEN 'expired' ELSE 'lost' END,
                                         coalesce(NEW.ended_at, leasehold.now_ms()), NEW.lost_reason, true);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER leases_events AFTER INSERT OR DELETE OR UPDATE OF status ON leasehold.leases
  FOR EACH ROW EXECUTE FUNCTION leasehold.lease_changed();

CREATE TABLE leasehold.queue_samples (
  queue_id   bigint NOT NULL,
  bucket     bigint NOT NULL,
  sent       integer NOT NULL DEFAULT 0,
  removed    integer NOT NULL DEFAULT 0,
  discarded  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (queue_id, bucket)
);
CREATE INDEX queue_samples_bucket ON leasehold.queue_samples (bucket);

CREATE FUNCTION leasehold.message_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO leasehold.queue_samples AS s (queue_id, bucket, sent) VALUES (NEW.queue_id, NEW.sent_at / 10000, 1)
    ON CONFLICT (queue_id, bucket) DO UPDATE SET sent = s.sent + 1;
  ELSE
    INSERT INTO leasehold.queue_samples AS s (queue_id, bucket, removed) VALUES (OLD.queue_id, leasehold.now_ms() / 10000, 1)
    ON CONFLICT (queue_id, bucket) DO UPDATE SET removed = s.removed + 1;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER messages_counted AFTER INSERT OR DELETE ON leasehold.messages
  FOR EACH ROW EXECUTE FUNCTION leasehold.message_counted();

CREATE TABLE leasehold.session_heartbeats (
  account_id      text NOT NULL,
  holder_session  text NOT NULL,
  bucket          bigint NOT NULL,
  beats           integer NOT NULL,
  last_at         bigint NOT NULL,
  PRIMARY KEY (account_id, holder_session, bucket)
);
CREATE INDEX session_heartbeats_bucket ON leasehold.session_heartbeats (bucket);
