-- Honest outcomes: the reasons a finished run is completed_with_issues or
-- failed (a JSON array of short sentences; '[]' for a clean run). The new
-- statuses themselves need no schema change: status is free text checked
-- by the store.
ALTER TABLE runs ADD COLUMN issues TEXT NOT NULL DEFAULT '[]';
