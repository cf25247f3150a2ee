-- kind: contract
--
-- The first schema: clock, accounts (with a fence sequence each), keys, rate buckets, space
-- claims, tasks, spools, one lease table for every kind, idempotency records, and the two
-- functions that hand a key over (`pass_on`, `settle_key`). Times are epoch milliseconds
-- (`bigint`) read from `now_ms()`: the database's `clock_timestamp()` plus the manual offset.
-- JSON values the API hands back verbatim (details, observations, bodies, results) are kept as
-- `text`, so they come back exactly as they went in (jsonb would reorder keys).
-- See docs/storage.md for what each table and index is for.

CREATE TABLE leasehold.clock (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  manual      boolean NOT NULL DEFAULT false,
  manual_ms   bigint  NOT NULL DEFAULT 0,
  offset_ms   bigint  NOT NULL DEFAULT 0
);
INSERT INTO leasehold.clock DEFAULT VALUES;

CREATE FUNCTION leasehold.now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN manual THEN manual_ms + offset_ms
              ELSE floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + offset_ms END
  FROM leasehold.clock
$$;

CREATE TABLE leasehold.accounts (
  account_id    text PRIMARY KEY,
  fence_seq     text NOT NULL,
  suspended     boolean NOT NULL DEFAULT false,
  next_task_id  bigint NOT NULL DEFAULT 1
);

CREATE TABLE leasehold.api_keys (
  key_hash              bytea PRIMARY KEY,
  credential_id         text NOT NULL UNIQUE,
  account_id            text NOT NULL REFERENCES leasehold.accounts,
  permissions           text[] NOT NULL,
  spaces                text[],
  blocked               boolean NOT NULL DEFAULT false,
  expired               boolean NOT NULL DEFAULT false,
  expires_at            bigint,
  rate_limit_per_second double precision
);

CREATE TABLE leasehold.rate_buckets (
  credential_id text PRIMARY KEY,
  rate          double precision NOT NULL,
  tokens        double precision NOT NULL,
  at_ms         bigint NOT NULL
);

CREATE TABLE leasehold.space_keys (
  key_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    text NOT NULL,
  space_id      text NOT NULL,
  key           text NOT NULL,
  sort_key      bytea NOT NULL,
  holder_lease  bigint,
  prev_release  text,
  forget_at     bigint,
  UNIQUE (account_id, space_id, key)
);
CREATE INDEX space_keys_held ON leasehold.space_keys (account_id, space_id, sort_key) WHERE holder_lease IS NOT NULL;
CREATE INDEX space_keys_forget ON leasehold.space_keys (forget_at) WHERE forget_at IS NOT NULL;

CREATE TABLE leasehold.cancelled_scopes (
  account_id    text NOT NULL,
  space_id      text NOT NULL,
  scope_id      text NOT NULL,
  cancelled_at  bigint NOT NULL,
  forget_at     bigint NOT NULL,
  PRIMARY KEY (account_id, space_id, scope_id)
);
CREATE INDEX cancelled_scopes_forget ON leasehold.cancelled_scopes (forget_at);

CREATE TABLE leasehold.tasks (
  account_id    text NOT NULL,
  task_id       bigint NOT NULL,
  title         text NOT NULL,
  description   text NOT NULL,
  status        text NOT NULL,
  version       integer NOT NULL,
  result        text NOT NULL DEFAULT 'null',
  created_at    bigint NOT NULL,
  updated_at    bigint NOT NULL,
  completed_at  bigint,
  PRIMARY KEY (account_id, task_id)
);
CREATE INDEX tasks_by_status ON leasehold.tasks (account_id, status, task_id);

CREATE TABLE leasehold.task_notes (
  note_seq      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    text NOT NULL,
  task_id       bigint NOT NULL,
  note_id       text NOT NULL,
  body          text NOT NULL,
  created_at    bigint NOT NULL,
  claim_id      text
);
CREATE INDEX task_notes_of_task ON leasehold.task_notes (account_id, task_id, note_seq);

CREATE TABLE leasehold.spools (
  account_id    text NOT NULL,
  name          text NOT NULL,
  created_at    bigint NOT NULL,
  PRIMARY KEY (account_id, name)
);

CREATE TABLE leasehold.queues (
  queue_id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id            text NOT NULL,
  spool                 text NOT NULL,
  name                  text NOT NULL,
  lease_timeout_seconds integer,
  UNIQUE (account_id, spool, name)
);

CREATE TABLE leasehold.messages (
  message_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  queue_id          bigint NOT NULL,
  account_id        text NOT NULL,
  spool             text NOT NULL,
  public_id         text NOT NULL,
  handle            text NOT NULL,
  body              text NOT NULL,
  sent_at           bigint NOT NULL,
  visible_at        bigint NOT NULL,
  delivery_count    integer NOT NULL DEFAULT 0,
  lease_id          bigint,
  lease_expires_at  bigint,
  UNIQUE (account_id, spool, handle)
);
CREATE INDEX messages_ready ON leasehold.messages (queue_id, message_id) WHERE lease_id IS NULL;
CREATE INDEX messages_leased_due ON leasehold.messages (queue_id, lease_expires_at) WHERE lease_id IS NOT NULL;

CREATE TABLE leasehold.leases (
  lease_id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  claim_id        text NOT NULL UNIQUE,
  kind            text NOT NULL CHECK (kind IN ('space', 'task', 'spool')),
  token_hash      bytea NOT NULL,
  account_id      text NOT NULL,
  credential_id   text NOT NULL,
  holder_session  text,
  status          text NOT NULL CHECK (status IN ('held', 'queued', 'lost', 'released')),
  fence           bigint,
  expires_at      bigint,
  lease_seconds   integer,
  acquired_at     bigint,
  ended_at        bigint,
  lost_reason     text,
  reported        boolean NOT NULL DEFAULT false,
  details         text,
  key_id          bigint,
  space_id        text,
  key             text,
  scope_id        text,
  holder          text,
  released_at     bigint,
  observation     text,
  task_id         bigint,
  message_id      bigint
);
-- The heartbeat's working set: a credential's live leases and its unreported losses.
CREATE INDEX leases_of_credential ON leasehold.leases (credential_id, lease_id)
  WHERE status IN ('held', 'queued') OR (status = 'lost' AND NOT reported);
-- What falls due: the sweep reads it in expiry order (a tick with nothing due is one probe).
CREATE INDEX leases_due ON leasehold.leases (expires_at)
  WHERE status IN ('held', 'queued') AND expires_at IS NOT NULL;
-- Tombstones, forgotten 10 minutes after they ended.
CREATE INDEX leases_ended ON leasehold.leases (ended_at) WHERE status IN ('lost', 'released');
-- A key's holder and its FIFO queue of waiters.
CREATE INDEX leases_on_key ON leasehold.leases (key_id, lease_id) WHERE kind = 'space' AND status IN ('held', 'queued');
-- A space's leases that may have fallen due (lazy expiry before a list or a cancel).
CREATE INDEX leases_space_due ON leasehold.leases (account_id, space_id, expires_at)
  WHERE kind = 'space' AND status IN ('held', 'queued');
-- A run's live claims (cancellation).
CREATE INDEX leases_of_scope ON leasehold.leases (account_id, space_id, scope_id)
  WHERE kind = 'space' AND status IN ('held', 'queued');
-- A task's claims, live and remembered; task tokens are found by their digest.
CREATE INDEX leases_of_task ON leasehold.leases (account_id, task_id) WHERE kind = 'task';
-- Outstanding spool leases (a primary change takes them all).
CREATE INDEX leases_spool_held ON leasehold.leases (lease_id) WHERE kind = 'spool' AND status = 'held';

CREATE TABLE leasehold.idempotency_records (
  record_hash   bytea PRIMARY KEY,
  fingerprint   text NOT NULL,
  answer        bytea NOT NULL,
  created_at    bigint NOT NULL,
  expires_at    bigint NOT NULL
);
CREATE INDEX idempotency_records_expiry ON leasehold.idempotency_records (expires_at);

-- The key's holder is gone at p_at: grant the first waiter still waiting at p_at (fence from the
-- account's sequence, acquired at p_at), lapsing those whose time ran out first; or free the key
-- (forgotten at once when it remembers no release, else 10 minutes from p_at). Answers the new
-- holder's lease id, or NULL. The caller holds the key row's lock.
CREATE FUNCTION leasehold.pass_on(p_key bigint, p_at bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  w record;
BEGIN
  FOR w IN
    SELECT l.lease_id, l.expires_at, l.lease_seconds, a.fence_seq
    FROM leasehold.leases l JOIN leasehold.accounts a USING (account_id)
    WHERE l.key_id = p_key AND l.kind = 'space' AND l.status = 'queued'
    ORDER BY l.lease_id
  LOOP
    IF w.expires_at <= p_at THEN
      UPDATE leasehold.leases SET status = 'lost', lost_reason = 'lapsed', ended_at = w.expires_at
      WHERE lease_id = w.lease_id;
    ELSE
      UPDATE leasehold.leases
      SET status = 'held', fence = nextval(w.fence_seq::regclass), acquired_at = p_at,
          expires_at = p_at + w.lease_seconds * 1000
      WHERE lease_id = w.lease_id;
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

-- Lazy expiry of one key at p_now, in due order, each at its own instant: an expired holder is
-- lost at its expiry and the key passes on at that instant (repeatedly, while the new holder has
-- expired too); then waiters whose own time ran out leave the queue. Locks the key row and
-- answers its holder's lease id after settling (NULL: free, or no such key).
CREATE FUNCTION leasehold.settle_key(p_key bigint, p_now bigint) RETURNS bigint LANGUAGE plpgsql AS $$
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
    SELECT expires_at INTO v_due FROM leasehold.leases
    WHERE lease_id = v_holder AND status = 'held' AND expires_at <= p_now;
    EXIT WHEN NOT FOUND;
    UPDATE leasehold.leases SET status = 'lost', lost_reason = 'expired', ended_at = v_due WHERE lease_id = v_holder;
    v_holder := leasehold.pass_on(p_key, v_due);
  END LOOP;
  UPDATE leasehold.leases SET status = 'lost', lost_reason = 'lapsed', ended_at = expires_at
  WHERE key_id = p_key AND kind = 'space' AND status = 'queued' AND expires_at <= p_now;
  RETURN v_holder;
END
$$;
-- Begin an idempotent unit: take the key's transaction-scoped advisory lock without waiting (a
-- unit of another session holding it is in flight; the lock dies with that transaction, so a
-- dead process blocks nobody once its connection or idle transaction is gone), then read the
-- stored answer in a fresh snapshot taken after the lock.
CREATE FUNCTION leasehold.idempotency_begin(p_hash bytea, p_lock bigint)
RETURNS TABLE (locked boolean, fingerprint text, answer bytea) LANGUAGE plpgsql AS $$
BEGIN
  IF NOT pg_try_advisory_xact_lock(p_lock) THEN
    RETURN QUERY SELECT false, NULL::text, NULL::bytea;
    RETURN;
  END IF;
  RETURN QUERY
    SELECT true, r.fingerprint, r.answer FROM leasehold.idempotency_records r
     WHERE r.record_hash = p_hash AND r.expires_at > leasehold.now_ms()
    UNION ALL
    SELECT true, NULL::text, NULL::bytea
    LIMIT 1;
END
$$;

-- Take one request from a credential's token bucket (p_rate per second, a burst of one second's
-- worth, at least one): answers 0 when allowed, else the whole seconds (>= 1) to wait.
CREATE FUNCTION leasehold.take_token(p_credential text, p_rate double precision) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  b leasehold.rate_buckets%ROWTYPE;
  t bigint := leasehold.now_ms();
  burst double precision := greatest(1, p_rate);
BEGIN
  INSERT INTO leasehold.rate_buckets (credential_id, rate, tokens, at_ms) VALUES (p_credential, p_rate, burst, t)
  ON CONFLICT (credential_id) DO NOTHING;
  SELECT * INTO b FROM leasehold.rate_buckets WHERE credential_id = p_credential FOR UPDATE;
  IF b.rate <> p_rate THEN
    b.tokens := burst;
    b.at_ms := t;
  END IF;
  b.tokens := least(burst, b.tokens + greatest(0, t - b.at_ms) / 1000.0 * p_rate);
  IF b.tokens >= 1 THEN
    UPDATE leasehold.rate_buckets SET rate = p_rate, tokens = b.tokens - 1, at_ms = t WHERE credential_id = p_credential;
    RETURN 0;
  END IF;
  UPDATE leasehold.rate_buckets SET rate = p_rate, tokens = b.tokens, at_ms = t WHERE credential_id = p_credential;
  RETURN greatest(1, ceil((1 - b.tokens) / p_rate))::integer;
END
$$;
