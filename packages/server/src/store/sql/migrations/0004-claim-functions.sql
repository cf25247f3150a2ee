-- kind: expand
--
-- acquire and release of a space claim as one function call each (`SingleStatement`s:
-- see `unit.ts`), the statements they ran one by one now run inside the database in order.
-- `acquire_space_claim` answers no outcome worth storing — its answer carries the token, which the
-- database never sees — so with an Idempotency-Key it runs inside the unit's transaction and the
-- sealed answer is stored with COMMIT; without one it is one statement. `release_space_claim`
-- stores its result row as the record's outcome when it succeeds, as the renew does.

-- Acquire p_key for a new lease (p_claim, its token's digest p_token): refuse a cancelled run
-- ('scope_cancelled'), lock and settle the key, refuse a held key unless p_wait ('claim_held'),
-- else insert the lease (held, with a fence from the account's sequence, or queued) and point a
-- free key at it; answers the claim row. A refusal writes nothing but the key's settling (what
-- any statement on the key would do at this instant). The record arguments are ignored.
CREATE FUNCTION leasehold.acquire_space_claim(
  p_account text, p_space text, p_key text, p_sort bytea, p_scope text, p_holder text, p_session text,
  p_seconds integer, p_wait boolean, p_claim text, p_token bytea, p_credential text,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_key bigint;
  v_holder bigint;
  v_lease bigint;
  v_granted boolean;
  c record;
BEGIN
  IF EXISTS (SELECT 1 FROM leasehold.cancelled_scopes s
              WHERE s.account_id = p_account AND s.space_id = p_space AND s.scope_id = p_scope AND s.forget_at > v_now) THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, '{"fn":"acquire_space_claim","row":{"refusal":"scope_cancelled"}}'::text, false;
    RETURN;
  END IF;
  INSERT INTO leasehold.space_keys (account_id, space_id, key, sort_key) VALUES (p_account, p_space, p_key, p_sort)
  ON CONFLICT (account_id, space_id, key) DO UPDATE SET key = EXCLUDED.key
  RETURNING key_id INTO v_key;
  v_holder := leasehold.settle_key(v_key, v_now);
  IF v_holder IS NOT NULL AND NOT p_wait THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, '{"fn":"acquire_space_claim","row":{"refusal":"claim_held"}}'::text, false;
    RETURN;
  END IF;
  v_granted := v_holder IS NULL;
  INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, holder_session, status, fence,
                                expires_at, lease_seconds, acquired_at, key_id, space_id, key, scope_id, holder)
  SELECT p_claim, 'space', p_token, p_account, p_credential, p_session, CASE WHEN v_granted THEN 'held' ELSE 'queued' END,
         CASE WHEN v_granted THEN nextval(a.fence_seq::regclass) END, v_now + p_seconds * 1000::bigint, p_seconds,
         CASE WHEN v_granted THEN v_now END, v_key, p_space, p_key, p_scope, p_holder
    FROM leasehold.accounts a WHERE a.account_id = p_account
  RETURNING lease_id INTO v_lease;
  IF v_granted THEN
    UPDATE leasehold.space_keys k
       SET holder_lease = v_lease, forget_at = NULL,
           prev_release = CASE WHEN k.forget_at IS NOT NULL AND k.forget_at <= v_now THEN NULL ELSE k.prev_release END
     WHERE k.key_id = v_key;
  END IF;
  SELECT l.lease_id, l.claim_id, l.space_id, l.key, l.scope_id, l.holder, l.holder_session, l.status,
         l.fence, l.lease_seconds, l.expires_at, l.acquired_at, l.details, k.prev_release,
         (SELECT count(*)::int FROM leasehold.leases q
           WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > v_now) AS queue_depth,
         (SELECT count(*)::int FROM leasehold.leases q
           WHERE q.key_id = l.key_id AND q.kind = 'space' AND q.status = 'queued' AND q.expires_at > v_now
             AND q.lease_id <= l.lease_id) AS position
    INTO c
    FROM leasehold.leases l JOIN leasehold.space_keys k ON k.key_id = l.key_id
   WHERE l.lease_id = v_lease;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea,
    json_build_object('fn', 'acquire_space_claim', 'row', json_build_object('claim', row_to_json(c)))::text, false;
END
$$;

-- Release the space claim of token (p_claim, p_token) on p_key: 'not_held' unless it is a space
-- lease of p_account on that key still remembered; lock and settle the key; an earlier release
-- answers again; a lost lease ('lost' with its reason) unless its run was cancelled; else record
-- the release (p_observation, JSON text), and when it held the key keep the previous release on
-- the key and hand the key on. With a record (as renew_space_claim): lock, replay, and store the
-- result row as the outcome when the release answered one.
CREATE FUNCTION leasehold.release_space_claim(
  p_claim text, p_token bytea, p_account text, p_space text, p_key text, p_observation text,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint;
  v_holder bigint;
  f record;
  v_row json;
  v_outcome text;
BEGIN
  v_now := leasehold.now_ms();
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT l.lease_id, l.key_id INTO f FROM leasehold.leases l
   WHERE l.claim_id = p_claim AND l.token_hash = p_token AND l.kind = 'space' AND l.account_id = p_account
     AND l.space_id = p_space AND l.key = p_key
     AND coalesce(CASE WHEN l.status IN ('held', 'queued') AND l.expires_at <= v_now THEN l.expires_at ELSE l.ended_at END
                  + 600000 > v_now, true);
  IF NOT FOUND THEN
    v_row := json_build_object('result', 'not_held');
  ELSE
    -- The key's lock first (then the lease), as every key operation takes them.
    v_holder := leasehold.settle_key(f.key_id, v_now);
    SELECT l.lease_id, l.key_id, l.claim_id, l.space_id, l.key, l.scope_id, l.holder, l.status, l.lost_reason,
           l.released_at, l.observation
      INTO f FROM leasehold.leases l WHERE l.lease_id = f.lease_id FOR UPDATE;
    IF f.released_at IS NOT NULL THEN
      v_row := json_build_object('result', 'released', 'view', row_to_json(f));
    ELSIF f.status = 'lost' AND f.lost_reason IS DISTINCT FROM 'scope_cancelled' THEN
      v_row := json_build_object('result', 'lost', 'reason', f.lost_reason);
    ELSE
      UPDATE leasehold.leases
         SET released_at = v_now, observation = p_observation,
             ended_at = CASE WHEN status IN ('held', 'queued') THEN v_now ELSE ended_at END,
             status = CASE WHEN status IN ('held', 'queued') THEN 'released' ELSE status END
       WHERE lease_id = f.lease_id;
      IF v_holder = f.lease_id THEN
        UPDATE leasehold.space_keys
           SET prev_release = json_build_object('claimId', f.claim_id, 'holder', f.holder, 'releasedAt', v_now,
                                                'observation', p_observation::json)::text
         WHERE key_id = f.key_id;
        PERFORM leasehold.pass_on(f.key_id, v_now);
      END IF;
      f.released_at := v_now;
      f.observation := p_observation;
      v_row := json_build_object('result', 'released', 'view', row_to_json(f));
    END IF;
  END IF;
  v_outcome := json_build_object('fn', 'release_space_claim', 'row', v_row)::text;
  IF v_row->>'result' = 'released' THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
END
$$;
