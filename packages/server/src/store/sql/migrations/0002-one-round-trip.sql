-- kind: contract
--
-- one round trip for a renew. An idempotency record may hold the operation's result row
-- (`outcome`, JSON text of `{ fn, row }`) instead of a sealed encoded answer: a one-statement
-- operation stores it in the same statement that decides and writes, and a replay re-derives
-- the answer from it (only operations whose answers carry no secret do this: a renew answers
-- no token). `idempotency_begin` also answers `outcome`. `record_verdict` and `record_outcome`
-- are the record's part every one-statement operation shares (its lock and lookup; keeping the
-- outcome). `renew_space_claim` is the space-claim renew as one function call: the record's
-- verdict, the renew statement, the record.

ALTER TABLE leasehold.idempotency_records
  ALTER COLUMN answer DROP NOT NULL,
  ADD COLUMN outcome text,
  ADD CONSTRAINT idempotency_records_answered CHECK (answer IS NOT NULL OR outcome IS NOT NULL);

DROP FUNCTION leasehold.idempotency_begin(bytea, bigint);
-- Begin an idempotent unit: take the key's transaction-scoped advisory lock without waiting (a
-- unit of another session holding it is in flight; the lock dies with that transaction, so a
-- dead process blocks nobody once its connection or idle transaction is gone), then read the
-- stored answer (or outcome) in a fresh snapshot taken after the lock.
CREATE FUNCTION leasehold.idempotency_begin(p_hash bytea, p_lock bigint)
RETURNS TABLE (locked boolean, fingerprint text, answer bytea, outcome text) LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(p_lock) THEN
    RETURN QUERY SELECT false, NULL::text, NULL::bytea, NULL::text;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, r.fingerprint, r.answer, r.outcome FROM leasehold.idempotency_records r
     WHERE r.record_hash = p_hash AND r.expires_at > leasehold.now_ms()
    UNION ALL
    SELECT true, NULL::text, NULL::bytea, NULL::text
    LIMIT 1;
END
$$;

-- The record part of a one-statement operation, shared: take its lock without waiting (p_lock
-- NULL: the embedded database's only session) and answer a live record, or nothing.
CREATE FUNCTION leasehold.record_verdict(p_record bytea, p_lock bigint, p_fingerprint text, p_now bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
BEGIN
  IF p_record IS NULL THEN
    RETURN;
  END IF;
  IF p_lock IS NOT NULL AND NOT pg_try_advisory_xact_lock(p_lock) THEN
    RETURN QUERY SELECT 'in_flight'::text, NULL::bytea, NULL::text, false;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT CASE WHEN i.fingerprint = p_fingerprint THEN 'replay' ELSE 'reused' END, i.answer, i.outcome, false
      FROM leasehold.idempotency_records i
     WHERE i.record_hash = p_record AND i.expires_at > p_now;
END
$$;

-- Keep a one-statement operation's result as its record's outcome (when there is a record).
CREATE FUNCTION leasehold.record_outcome(p_record bytea, p_fingerprint text, p_outcome text, p_now bigint, p_ttl bigint)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF p_record IS NULL THEN
    RETURN false;
  END IF;
  INSERT INTO leasehold.idempotency_records (record_hash, fingerprint, answer, outcome, created_at, expires_at)
  VALUES (p_record, p_fingerprint, NULL, p_outcome, p_now, p_now + p_ttl)
  ON CONFLICT (record_hash) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, answer = NULL, outcome = EXCLUDED.outcome,
         created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at;
  RETURN true;
END
$$;

-- Renew a space claim in one statement (its own transaction when sent alone). With a record
-- (p_record not NULL): take its lock without waiting ('in_flight' when taken; p_lock NULL: no
-- lock, for the only session of an embedded database), answer a live
-- record ('replay', or 'reused' for another fingerprint); else renew when the token holds the
-- key now, answer the claim row either way (the row says why not), and store it as the
-- record's outcome when it renewed ('stored'). Without a record (inside a unit that claimed it):
-- the renew alone.
CREATE FUNCTION leasehold.renew_space_claim(
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
    UPDATE leasehold.leases l SET lease_seconds = p_seconds, expires_at = v_now + p_seconds * 1000::bigint
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
