-- kind: expand
--
-- 0015: an acquire and a receive under an Idempotency-Key are one statement, not three
-- (docs/storage.md, "Speed: keyed acquires and receives"). Their answers carry a lease token the
-- database does not hold (it keeps the token's digest), so a record could not keep their result
-- row as its outcome the way a renew's record does: the unit opened a transaction (BEGIN and
-- `idempotency_begin`), called the function, then stored the sealed answer with COMMIT — three
-- round trips, half of a keyed acquire + release pair's time on the server's connections.
-- Now the build mints the token, seals it itself (AES-256-GCM under a key derived from the
-- Idempotency-Key and credential, as a sealed answer is: a dump of the database still hands out
-- no live token) and passes the sealed token with the call. These functions check the record,
-- run the operation (the functions before them, unchanged, called without a record), and keep
-- the result row with the sealed token (`"sealed"`, base64) as the record's outcome, in the same
-- statement; a replay answers the row, and the build opens the token from it.
-- Builds before 0015 keep calling the functions they know. A record one of them stored (a sealed
-- answer) replays through these functions too; a record these functions stored names its
-- function (`acquire_space_claim_sealed`), which an older build's replay refuses as a stored
-- outcome of another operation (an error, never a wrong token), so during a rolling upgrade a
-- retried acquire or receive that reaches an older process after a newer one ran it fails once
-- and replays on a newer process.

-- Acquire p_key as acquire_space_claim does; with a record (p_record …): lock it, replay a live
-- one, and keep a granted or queued claim's row with p_sealed (the caller's sealed token) as
-- its outcome. A refusal keeps nothing (the caller stores refusals it keeps on its own).
CREATE FUNCTION leasehold.acquire_space_claim_sealed(
  p_account text, p_space text, p_key text, p_sort bytea, p_scope text, p_holder text, p_session text,
  p_seconds integer, p_wait boolean, p_claim text, p_token bytea, p_credential text, p_sealed bytea,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_row json;
  v_outcome text;
BEGIN
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT a.outcome::json->'row' INTO v_row
    FROM leasehold.acquire_space_claim(p_account, p_space, p_key, p_sort, p_scope, p_holder, p_session, p_seconds, p_wait,
                                       p_claim, p_token, p_credential, NULL, NULL, NULL, NULL) a;
  v_outcome := json_build_object('fn', 'acquire_space_claim_sealed', 'row', v_row, 'sealed', encode(p_sealed, 'base64'))::text;
  IF v_row->'claim' IS NOT NULL AND p_sealed IS NOT NULL THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
END
$$;

-- Receive as receive_message does; with a record: lock it, replay a live one, and keep the
-- result row as its outcome when a message was received (with p_sealed, the caller's sealed
-- lease token) or the queue was empty (nothing sealed: the answer carries no token).
CREATE FUNCTION leasehold.receive_message_sealed(
  p_account text, p_spool text, p_queue text, p_claim text, p_token bytea, p_credential text, p_session text,
  p_sealed bytea, p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_row json;
  v_outcome text;
BEGIN
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT r.outcome::json->'row' INTO v_row
    FROM leasehold.receive_message(p_account, p_spool, p_queue, p_claim, p_token, p_credential, p_session, NULL, NULL, NULL, NULL) r;
  IF v_row->>'result' = 'received' AND p_sealed IS NOT NULL THEN
    v_outcome := json_build_object('fn', 'receive_message_sealed', 'row', v_row, 'sealed', encode(p_sealed, 'base64'))::text;
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
    RETURN;
  END IF;
  v_outcome := json_build_object('fn', 'receive_message_sealed', 'row', v_row)::text;
  IF v_row->>'result' = 'empty' THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
    RETURN;
  END IF;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
END
$$;
