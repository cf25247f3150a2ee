-- kind: expand
--
-- send, receive and ack of a spool message as one function call each (`SingleStatement`s:
-- see `unit.ts`). Send and ack store their result row as the record's outcome when they succeed;
-- receive's answer carries the lease token the database never sees (and receive takes no
-- Idempotency-Key), so it is never stored. Each answers the spool and queue it found, so the
-- caller refuses in the engine's order.

-- Send a message to p_queue of p_spool: 'no_spool', 'no_queue', or 'sent' with the message row.
CREATE FUNCTION leasehold.send_message(
  p_account text, p_spool text, p_queue text, p_public text, p_handle text, p_body text, p_delay integer,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_queue bigint;
  v_row json;
  v_outcome text;
BEGIN
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  SELECT q.queue_id INTO v_queue FROM leasehold.spools s
    LEFT JOIN leasehold.queues q ON q.account_id = s.account_id AND q.spool = s.name AND q.name = p_queue
   WHERE s.account_id = p_account AND s.name = p_spool;
  IF NOT FOUND THEN
    v_row := json_build_object('result', 'no_spool');
  ELSIF v_queue IS NULL THEN
    v_row := json_build_object('result', 'no_queue');
  ELSE
    WITH m AS (
      INSERT INTO leasehold.messages (queue_id, account_id, spool, public_id, handle, body, sent_at, visible_at)
      VALUES (v_queue, p_account, p_spool, p_public, p_handle, p_body, v_now, v_now + p_delay * 1000::bigint)
      RETURNING *
    )
    SELECT json_build_object('result', 'sent', 'message', json_build_object(
             'message_id', m.message_id, 'public_id', m.public_id, 'handle', m.handle, 'spool', m.spool, 'queue', p_queue,
             'body', m.body, 'sent_at', m.sent_at, 'delivery_count', m.delivery_count, 'claim_id', NULL, 'fence', NULL))
      INTO v_row FROM m;
  END IF;
  v_outcome := json_build_object('fn', 'send_message', 'row', v_row)::text;
  IF v_row->>'result' = 'sent' THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
  ELSE
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
  END IF;
END
$$;

-- Receive the oldest receivable message of p_queue (unleased and visible, or its lease expired;
-- FOR UPDATE SKIP LOCKED): 'no_spool', 'no_queue', 'empty', or 'received' with the message row,
-- its new lease's claim id and fence, the queue's lease timeout and now. The lease (p_claim, its
-- token's digest p_token) replaces an expired one. The record arguments are ignored.
CREATE FUNCTION leasehold.receive_message(
  p_account text, p_spool text, p_queue text, p_claim text, p_token bytea, p_credential text, p_session text,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_found boolean;
  v_queue bigint;
  v_timeout integer;
  v_pick bigint;
  v_old bigint;
  v_expires bigint;
  v_row json;
BEGIN
  SELECT true, q.queue_id, q.lease_timeout_seconds INTO v_found, v_queue, v_timeout FROM leasehold.spools s
    LEFT JOIN leasehold.queues q ON q.account_id = s.account_id AND q.spool = s.name AND q.name = p_queue
   WHERE s.account_id = p_account AND s.name = p_spool;
  IF v_found IS NULL THEN
    v_row := json_build_object('result', 'no_spool');
  ELSIF v_queue IS NULL THEN
    v_row := json_build_object('result', 'no_queue');
  ELSE
    WITH ready AS (
      SELECT message_id, lease_id FROM leasehold.messages
       WHERE queue_id = v_queue AND lease_id IS NULL AND visible_at <= v_now
       ORDER BY message_id LIMIT 1 FOR UPDATE SKIP LOCKED
    ), expired AS (
      SELECT message_id, lease_id FROM leasehold.messages
       WHERE queue_id = v_queue AND lease_id IS NOT NULL AND lease_expires_at <= v_now
       ORDER BY message_id LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    SELECT c.message_id, c.lease_id INTO v_pick, v_old FROM (SELECT * FROM ready UNION ALL SELECT * FROM expired) c
     ORDER BY c.message_id LIMIT 1;
    IF v_pick IS NULL THEN
      v_row := json_build_object('result', 'empty');
    ELSE
      v_expires := CASE WHEN v_timeout IS NULL THEN NULL ELSE v_now + v_timeout * 1000::bigint END;
      UPDATE leasehold.leases SET status = 'lost', lost_reason = 'expired', ended_at = expires_at
       WHERE lease_id = v_old AND status = 'held';
      WITH lease AS (
        INSERT INTO leasehold.leases (claim_id, kind, token_hash, account_id, credential_id, holder_session, status, fence,
                                      expires_at, lease_seconds, acquired_at, message_id)
        SELECT p_claim, 'spool', p_token, p_account, p_credential, p_session, 'held', nextval(a.fence_seq::regclass),
               v_expires, v_timeout, v_now, v_pick
          FROM leasehold.accounts a WHERE a.account_id = p_account
        RETURNING lease_id, claim_id, fence
      ), m AS (
        UPDATE leasehold.messages m SET lease_id = lease.lease_id, lease_expires_at = v_expires,
                                        delivery_count = m.delivery_count + 1
          FROM lease WHERE m.message_id = v_pick RETURNING m.*
      )
      SELECT json_build_object('result', 'received', 'now', v_now, 'timeout', v_timeout, 'message', json_build_object(
               'message_id', m.message_id, 'public_id', m.public_id, 'handle', m.handle, 'spool', m.spool, 'queue', p_queue,
               'body', m.body, 'sent_at', m.sent_at, 'delivery_count', m.delivery_count,
               'claim_id', lease.claim_id, 'fence', lease.fence))
        INTO v_row FROM m CROSS JOIN lease;
    END IF;
  END IF;
  RETURN QUERY SELECT 'ran'::text, NULL::bytea, json_build_object('fn', 'receive_message', 'row', v_row)::text, false;
END
$$;

-- Acknowledge the message of lease (p_claim, p_token) in p_spool: 'no_spool', 'stale' (the
-- lease no longer settles anything), or 'acked' (lease and message deleted).
CREATE FUNCTION leasehold.ack_message(
  p_account text, p_spool text, p_claim text, p_token bytea,
  p_record bytea, p_lock bigint, p_fingerprint text, p_ttl bigint)
RETURNS TABLE (verdict text, answer bytea, outcome text, stored boolean) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_now bigint := leasehold.now_ms();
  v_lease bigint;
  v_message bigint;
  v_row json;
  v_outcome text;
BEGIN
  RETURN QUERY SELECT * FROM leasehold.record_verdict(p_record, p_lock, p_fingerprint, v_now);
  IF FOUND THEN
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM leasehold.spools WHERE account_id = p_account AND name = p_spool) THEN
    v_row := json_build_object('result', 'no_spool');
  ELSE
    SELECT l.lease_id, l.message_id INTO v_lease, v_message
      FROM leasehold.leases l
      JOIN leasehold.messages m ON m.message_id = l.message_id AND m.lease_id = l.lease_id
     WHERE l.claim_id = p_claim AND l.token_hash = p_token AND l.kind = 'spool' AND l.status = 'held'
       AND (l.expires_at IS NULL OR l.expires_at > v_now)
       AND m.account_id = p_account AND m.spool = p_spool
     FOR UPDATE OF l, m;
    IF NOT FOUND THEN
      v_row := json_build_object('result', 'stale');
    ELSE
      DELETE FROM leasehold.leases WHERE lease_id = v_lease;
      DELETE FROM leasehold.messages WHERE message_id = v_message;
      v_row := json_build_object('result', 'acked');
    END IF;
  END IF;
  v_outcome := json_build_object('fn', 'ack_message', 'row', v_row)::text;
  IF v_row->>'result' = 'acked' THEN
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, leasehold.record_outcome(p_record, p_fingerprint, v_outcome, v_now, p_ttl);
  ELSE
    RETURN QUERY SELECT 'ran'::text, NULL::bytea, v_outcome, false;
  END IF;
END
$$;
