-- Issue 24, ground truth: what a run reports is what Baton checked.
--
-- The host that served a run (store.RunHost as a JSON object: its kind,
-- the binary's path and version or the endpoint), so that a resume goes on
-- where the run ran and a move to another host is explicit.
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '{}';

-- What each task's report claimed and Baton did not find: declared outputs
-- the task never wrote, and files it changed outside its scope (JSON
-- arrays of paths).
ALTER TABLE workers ADD COLUMN missing_outputs TEXT NOT NULL DEFAULT '[]';
ALTER TABLE workers ADD COLUMN out_of_scope TEXT NOT NULL DEFAULT '[]';

-- The project's checks Baton ran itself: round 0 is the baseline taken
-- before the workers, round N the Nth time the workers' results came
-- together. verdict compares a result with the baseline (passes, fixed,
-- broken, pre-existing, new-failure; baseline for round 0).
CREATE TABLE check_results (
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    round       INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    name        TEXT NOT NULL,
    command     TEXT NOT NULL,
    status      TEXT NOT NULL,
    exit_code   INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    output_tail TEXT NOT NULL DEFAULT '',
    message     TEXT NOT NULL DEFAULT '',
    verdict     TEXT NOT NULL DEFAULT '',
    dir         TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (run_id, round, position)
);
