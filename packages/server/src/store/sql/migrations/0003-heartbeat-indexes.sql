-- kind: expand
--
-- Indexes the heartbeat measured it needs. A heartbeat names its holder session (the SDK
-- always does), and a fleet shares one credential: its working set is found by credential AND
-- session, not by scanning every lease of the credential (`leases_of_session` replaces
-- `leases_of_credential`; without a session its prefix still serves). A key's waiters — queue
-- depth and positions in every claim row — get an index of their own, small (waiters only) and
-- matching those counts exactly, so they stay index probes whatever the statistics say.

CREATE INDEX leases_of_session ON leasehold.leases (credential_id, holder_session, lease_id)
  WHERE status IN ('held', 'queued') OR (status = 'lost' AND NOT reported);
DROP INDEX leasehold.leases_of_credential;
CREATE INDEX leases_waiting ON leasehold.leases (key_id, lease_id) WHERE kind = 'space' AND status = 'queued';
