-- Which process drives a run: one at a time. The lock names the process
-- (its id, its start, the machine, the window or the terminal); a lock
-- whose process is gone (a crash, a kill) is taken over by the next
-- process that takes the run up, and a process lets go of its runs when it
-- stops driving them.
CREATE TABLE run_locks (
    run_id  TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    pid     INTEGER NOT NULL,
    start   TEXT NOT NULL DEFAULT '',
    face    TEXT NOT NULL DEFAULT '',
    machine TEXT NOT NULL DEFAULT '',
    since   INTEGER NOT NULL
);
