-- kind: expand
--
-- 0011: whether the database's API keys are a configured set (docs/operating.md, "API keys in
-- production"). A process started with a key set (a keys file) makes it the database's set:
-- its keys are written with the standing the file gives them, every other key is deleted, and
-- this row records that a set was configured. The demo keys are registered only in a database
-- that has no such row, so they never appear in one that was started with a keys file.
--

CREATE TABLE leasehold.key_sets (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  configured_at bigint NOT NULL,
  key_count     integer NOT NULL
);
