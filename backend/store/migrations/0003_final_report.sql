-- Seed 004: the final report of a finished run (tasks, iterations,
-- decisions, files, known limitations), written in the same transaction as
-- the change that finishes the run. The engine owns the shape of the JSON.
CREATE TABLE final_reports (
    run_id     TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    report     TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
