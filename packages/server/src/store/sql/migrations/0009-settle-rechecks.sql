-- kind: expand
-- replaces: pass_on, settle_key
--
-- `settle_key` and `pass_on` end or grant a lease only on its row as it is once locked.
-- The key row is the lock of a hand-over, but a renew or a heartbeat changes only the lease's
-- row; an expiry decided on the `expires_at` a statement read before that renew committed would
-- then end a lease its holder was just told it holds (and hand the key on). Each UPDATE now
-- carries its condition (`status`, `expires_at <= now`), which PostgreSQL re-checks on the
-- committed row it waited for: the renew wins, and a waiter whose wait a heartbeat extended is
-- not lapsed. Otherwise the functions are those of 0001.

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
        expires_at = p_at + lease_seconds * 1000
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

CREATE OR REPLACE FUNCTION leasehold.settle_key(p_key bigint, p_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_holder bigint;
  v_due bigint;
BEGIN
  SELECT holder_lease INTO v_holder FROM leasehold.space_keys WHERE key_id = p_key FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  LOOP
    EXIT WHEN v_holder IS NULL;
    UPDATE leasehold.leases SET status = 'lost', lost_reason = 'expired', ended_at = expires_at
    WHERE lease_id = v_holder AND status = 'held' AND expires_at <= p_now
    RETURNING ended_at INTO v_due;
    EXIT WHEN NOT FOUND;
    v_holder := leasehold.pass_on(p_key, v_due);
  END LOOP;
  UPDATE leasehold.leases SET status = 'lost', lost_reason = 'lapsed', ended_at = expires_at
  WHERE key_id = p_key AND kind = 'space' AND status = 'queued' AND expires_at <= p_now;
  RETURN v_holder;
END
$$;
