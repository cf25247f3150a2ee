-- kind: expand
-- replaces: pass_on, renew_space_claim
--
-- 0013: renewals become HOT updates (docs/storage.md, "Speed: the heartbeat"). A renewal
-- changes `expires_at`, and `expires_at` was indexed (`leases_due`, `leases_space_due`), so no
-- renewal could be a heap-only update: each one wrote a new row version elsewhere and an entry in
-- 7 of the table's indexes (a heartbeat of 10,000 leases: 12.9 MB of WAL, 0 of its updates HOT).
-- Now no index names `expires_at`. What falls due is found by `due_at` instead: the time the
-- sweep next has work with the row, never later than its expiry while the lease is live (a
-- lower bound, so nothing falls due unseen). A renewal that extends the lease leaves `due_at`
-- as it is — the update touches no indexed column and stays on its page (`fillfactor` 50 keeps
-- room there for a new version of every row); one that shortens it lowers `due_at` with it
-- (`least`). The sweep moves a passed `due_at` on to the lease's expiry when it was renewed
-- meanwhile (once per lease term, not once per renewal), and a task or spool lease that expired
-- to the moment its row is forgotten (10 minutes later). A new lease's `due_at` is its expiry
-- (`date_lease`, run only when an insert leaves it empty: every insert of this build and of the
-- builds before it). The lease's state is still derived from `expires_at` at every read.
-- Builds before 0013 keep working on this schema: their sweep scans without the dropped
-- indexes (slower, same answers), and a spool renewal of theirs that shortens a lease leaves its
-- `due_at` late, so the sweep forgets that lease later (its state is judged by `expires_at`).

ALTER TABLE leasehold.leases ADD COLUMN due_at bigint;
ALTER TABLE leasehold.leases SET (fillfactor = 50);
UPDATE leasehold.leases SET due_at = expires_at WHERE status IN ('held', 'queued') AND expires_at IS NOT NULL;
-- What falls due, in order (a sweep with nothing due is one probe); a space's due leases.
CREATE INDEX leases_due_at ON leasehold.leases (due_at) WHERE status IN ('held', 'queued');
CREATE INDEX leases_space_due_at ON leasehold.leases (account_id, space_id, due_at)
  WHERE kind = 'space' AND status IN ('held', 'queued');
DROP INDEX leasehold.leases_due;
DROP INDEX leasehold.leases_space_due;

-- A new lease falls due at its expiry.
CREATE FUNCTION leasehold.date_lease() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.due_at := NEW.expires_at;
  RETURN NEW;
END
$$;

CREATE TRIGGER leases_dated BEFORE INSERT ON leasehold.leases
  FOR EACH ROW WHEN (NEW.due_at IS NULL AND NEW.expires_at IS NOT NULL) EXECUTE FUNCTION leasehold.date_lease();

-- The key's holder is gone at p_at: grant the first waiter still waiting at p_at (fence from the
-- account's sequence, acquired at p_at, due at its new expiry), lapsing those whose time ran out
-- first; or free the key (forgotten at once when it remembers no release, else 10 minutes from
-- p_at). Answers the new holder's lease id, or NULL. The caller holds the key row's lock. Each
-- UPDATE carries its condition, re-checked on the row once locked (0009).
CREATE OR REPLACE FUNCTION leasehold.pass_on(p_key bigint, p_at bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  w record;
BEGIN
  FOR w IN
    SELECT l.lease_id, a.fence_seq
    FROM leasehold.leases l JOIN leasehold.accounts a USING (account_id)
    WHERE l.key_id = p_key AND l.kind = 'space' AND l.status = 'queued'
    ORDER BY l.lease_id
  LOOP
    UPDATE leasehold.leases SET status = 'lost', lost_reason = 'lapsed', ended_at = expires_at
    WHERE lease_id = w.lease_id AND status = 'queued' AND expires_at <= p_at;
    CONTINUE WHEN FOUND;
    UPDATE leasehold.leases
    SET status = 'held', fence = nextval(w.fence_seq::regclass), acquired_at = p_at,
        expires_at = p_at + lease_seconds * 1000, due_at = p_at + lease_seconds * 1000
    WHERE lease_id = w.lease_id AND status = 'queued';
    IF FOUND THEN
      UPDATE leasehold.space_keys SET holder_lease = w.lease_id, forget_at = NULL WHERE key_id = p_key;
      RETURN w.lease_id;
    END IF;
  END LOOP;
  UPDATE leasehold.space_keys
  SET holder_lease = NULL,
      forget_at = CASE WHEN prev_release IS NULL THEN p_at ELSE p_at + 600000 END
  WHERE key_id = p_key;
  RETURN NULL;
END
$$;

-- Renew a space claim in one statement (its own transaction when sent alone). With a record
-- (p_record not NULL): take its lock without waiting ('in_flight' when taken; p_lock NULL: no
-- lock, for the only session of an embedded database), answer a live
-- record ('replay', or 'reused' for another fingerprint); else renew when the token holds the
-- key now (a HOT update: `due_at` moves only when the renewal shortens the lease), answer the
-- claim row either way (the row says why not), and store it as the record's outcome when it
-- renewed ('stored'). Without a record (inside a unit that claimed it): the renew alone.
CREATE OR REPLACE FUNCTION leasehold.renew_space_claim(
  p_claim text, p_token bytea, p_seconds integer, p_account text, p_space text, p_key text,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  r record;
  v_now bigint;
  v_outcome text;
BEGIN
  v_now := leasehold.now_ms();
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  WITH u AS (
    UPDATE leasehold.leases l SET lease_seconds = p_seconds, expires_at = v_now + p_seconds * 1000::bigint,
                                  due_at = least(l.due_at, v_now + p_seconds * 1000::bigint)
     WHERE l.claim_id = p_claim AND l.token_hash = p_token AND l.kind = 'space' AND l.account_id = p_account
       AND l.space_id = p_space AND l.key = p_key AND l.status = 'held' AND l.expires_at > v_now
    RETURNING l.lease_id, l.expires_at
  )
  SELECT l.lease_id, l.claim_id, l.kind, l.account_id, l.space_id, l.key, l.scope_id, l.holder, l.holder_session,
         l.status, l.lost_reason, l.ended_at, l.fence, p_seconds AS lease_seconds, l.expires_at, l.acquired_at, l.details,
         k.prev_release, v_now AS now, (u.lease_id IS NOT NULL) AS renewed, u.expires_at AS new_expires_at,
         (SELECT count(*)::int FROM leasehold.leases q
           WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > v_now) AS queue_depth,
         0 AS position
    INTO r
    FROM leasehold.leases l
    LEFT JOIN u ON u.lease_id = l.lease_id
    LEFT JOIN leasehold.space_keys k ON k.key_id = l.key_id
   WHERE l.claim_id = p_claim AND l.token_hash = p_token;
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, NULL::text, false;
    RETURN;
  END IF;
  v_outcome := json_build_object('fn', 'renew_space_claim', 'row', row_to_json(r))::text;
  IF r.renewed THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
END
$$;
