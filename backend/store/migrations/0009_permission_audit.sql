-- Issue 29: every answer to a permission prompt of a run (by the user, by a
-- permission rule, or by the permission mode) with its time, worker, tool
-- and a summary of its input; and the rules the user added to a run
-- ("Allow for this run"), which later prompts of the run are answered by.
CREATE TABLE permission_decisions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    task_id    TEXT NOT NULL DEFAULT '',
    at         INTEGER NOT NULL,
    tool       TEXT NOT NULL,
    summary    TEXT NOT NULL DEFAULT '',
    decision   TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    rule       TEXT NOT NULL DEFAULT '',
    source     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX permission_decisions_run ON permission_decisions (run_id, id);

CREATE TABLE permission_rules (
    run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    rule     TEXT NOT NULL,
    deny     INTEGER NOT NULL DEFAULT 0,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (run_id, rule, deny)
);
