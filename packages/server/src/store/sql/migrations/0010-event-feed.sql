-- kind: contract
-- compatible-from: 0009
--
-- A contract only for its unique index on the new `feed_position`: a build of 0009 writes
-- events with no place (NULL, which the index never compares) and this build places them when
-- it reads the feed, so builds of 0009 still serve on this schema.
--
-- 0010: the lease event feed in commit order (docs/storage.md, "Activity"). An event's
-- `event_id` is allocated when its row is written, and a transaction may commit after another
-- that wrote a higher id: a reader that resumed after the highest id it saw skipped it. Now an
-- event gets its place in the feed (`feed_position`, per account) only once it is committed:
-- a feed read first places the account's committed events that have none, in `event_id`
-- order, after the account's last place (`event_feeds`, whose row lock makes placements one at
-- a time), and reads by place. A place never changes and every later place is higher, so a
-- cursor (`evt_<place>`, the same format) misses nothing and sees nothing twice. Existing
-- events keep their id as their place, and every account's feed continues above the last id
-- handed out, so cursors read before this migration stay valid.
--

ALTER TABLE leasehold.lease_events ADD COLUMN feed_position bigint;
UPDATE leasehold.lease_events SET feed_position = event_id;
CREATE UNIQUE INDEX lease_events_feed ON leasehold.lease_events (account_id, feed_position);
CREATE INDEX lease_events_unplaced ON leasehold.lease_events (account_id, event_id) WHERE feed_position IS NULL;

CREATE TABLE leasehold.event_feeds (
  account_id    text PRIMARY KEY,
  last_position bigint NOT NULL
);
INSERT INTO leasehold.event_feeds (account_id, last_position)
SELECT a.account_id, greatest(coalesce((SELECT max(event_id) FROM leasehold.lease_events), 0),
                              coalesce(pg_sequence_last_value(pg_get_serial_sequence('leasehold.lease_events', 'event_id')), 0))
  FROM leasehold.accounts a;

-- Give the account's committed events without a place theirs, in event_id order (one placement at a time per account).
CREATE FUNCTION leasehold.place_events(p_account text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_last bigint;
  v_max  bigint;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM leasehold.lease_events WHERE account_id = p_account AND feed_position IS NULL) THEN
    RETURN;
  END IF;
  INSERT INTO leasehold.event_feeds (account_id, last_position) VALUES (p_account, 0) ON CONFLICT (account_id) DO NOTHING;
  SELECT last_position INTO v_last FROM leasehold.event_feeds WHERE account_id = p_account FOR UPDATE;
  -- A statement after the lock: it sees every placement committed before it.
  WITH due AS (
    SELECT event_id, row_number() OVER (ORDER BY event_id) AS n
      FROM leasehold.lease_events WHERE account_id = p_account AND feed_position IS NULL
  ), placed AS (
    UPDATE leasehold.lease_events e SET feed_position = v_last + due.n FROM due
     WHERE e.event_id = due.event_id AND e.feed_position IS NULL
    RETURNING e.feed_position
  )
  SELECT max(feed_position) INTO v_max FROM placed;
  IF v_max IS NOT NULL THEN
    UPDATE leasehold.event_feeds SET last_position = v_max WHERE account_id = p_account;
  END IF;
END
$$;
