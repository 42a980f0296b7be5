-- Issue 17: what a run shows about limits and its budget (store.RunLimits as
-- a JSON object): the time a run waiting for a rate, overload or usage limit
-- goes on, the lowered worker count, the budget and whether it paused the
-- run, and whether the cost was computed from Baton's price table.
ALTER TABLE runs ADD COLUMN limits TEXT NOT NULL DEFAULT '{}';
