-- Runs: one orchestration each. Times are Unix milliseconds (UTC).
CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    template_id     TEXT NOT NULL,
    template_name   TEXT NOT NULL DEFAULT '',
    template        TEXT NOT NULL DEFAULT '{}',   -- resolved template as run with (JSON)
    cwd             TEXT NOT NULL,
    request         TEXT NOT NULL,
    variables       TEXT NOT NULL DEFAULT '{}',   -- JSON object
    status          TEXT NOT NULL,
    resume_status   TEXT NOT NULL DEFAULT '',
    phase           TEXT NOT NULL DEFAULT '',
    main_session_id TEXT NOT NULL DEFAULT '',
    message         TEXT NOT NULL DEFAULT '',
    error           TEXT NOT NULL DEFAULT '',
    tasks_total     INTEGER NOT NULL DEFAULT 0,
    tasks_completed INTEGER NOT NULL DEFAULT 0,
    tasks_failed    INTEGER NOT NULL DEFAULT 0,
    tasks_skipped   INTEGER NOT NULL DEFAULT 0,
    input_tokens    INTEGER NOT NULL DEFAULT 0,
    output_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd        REAL NOT NULL DEFAULT 0,
    state           TEXT NOT NULL DEFAULT '{}',   -- engine bookkeeping (JSON)
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    started_at      INTEGER,
    completed_at    INTEGER
);
CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
CREATE INDEX runs_status_created ON runs (status, created_at DESC);
CREATE INDEX runs_template_created ON runs (template_id, created_at DESC);

-- Full-text index of the request (FTS4 ships in go-sqlite3's default build;
-- FTS5 needs a build tag). External content: the text lives in runs only.
CREATE VIRTUAL TABLE runs_fts USING fts4 (content="runs", request);
CREATE TRIGGER runs_fts_insert AFTER INSERT ON runs BEGIN
    INSERT INTO runs_fts (docid, request) VALUES (new.rowid, new.request);
END;
CREATE TRIGGER runs_fts_delete BEFORE DELETE ON runs BEGIN
    DELETE FROM runs_fts WHERE docid = old.rowid;
END;
CREATE TRIGGER runs_fts_update_before BEFORE UPDATE OF request ON runs BEGIN
    DELETE FROM runs_fts WHERE docid = old.rowid;
END;
CREATE TRIGGER runs_fts_update_after AFTER UPDATE OF request ON runs BEGIN
    INSERT INTO runs_fts (docid, request) VALUES (new.rowid, new.request);
END;

-- Tasks of a run's confirmed (or proposed) plan.
CREATE TABLE tasks (
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    id           TEXT NOT NULL,
    position     INTEGER NOT NULL,
    title        TEXT NOT NULL,
    description  TEXT NOT NULL,
    scope        TEXT NOT NULL DEFAULT '[]',
    priority     INTEGER NOT NULL DEFAULT 5,
    dependencies TEXT NOT NULL DEFAULT '[]',
    complexity   TEXT NOT NULL DEFAULT '',
    skipped      INTEGER NOT NULL DEFAULT 0,
    definition   TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, id)
);

-- The current worker of each task (retries reuse the row; events keep the history).
CREATE TABLE workers (
    run_id           TEXT NOT NULL,
    task_id          TEXT NOT NULL,
    session_id       TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    retry_count      INTEGER NOT NULL DEFAULT 0,
    progress         REAL NOT NULL DEFAULT 0,
    current_action   TEXT NOT NULL DEFAULT '',
    tools            TEXT NOT NULL DEFAULT '{}',
    summary          TEXT NOT NULL DEFAULT '',
    output           TEXT NOT NULL DEFAULT '',
    output_files     TEXT NOT NULL DEFAULT '[]',
    error            TEXT NOT NULL DEFAULT '',
    unstructured     INTEGER NOT NULL DEFAULT 0,
    skipped          INTEGER NOT NULL DEFAULT 0,
    waiting          TEXT NOT NULL DEFAULT '',
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    cost_usd         REAL NOT NULL DEFAULT 0,
    state            TEXT NOT NULL DEFAULT '{}',
    started_at       INTEGER,
    completed_at     INTEGER,
    last_activity_at INTEGER,
    updated_at       INTEGER NOT NULL,
    PRIMARY KEY (run_id, task_id),
    FOREIGN KEY (run_id, task_id) REFERENCES tasks (run_id, id) ON DELETE CASCADE
);
CREATE INDEX workers_session ON workers (session_id);

-- Every answer of the main session (and its failures), per phase.
CREATE TABLE phase_answers (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id       TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    phase        TEXT NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 0,
    status       TEXT NOT NULL,
    data         TEXT NOT NULL DEFAULT 'null',
    repairs      TEXT NOT NULL DEFAULT '[]',
    errors       TEXT NOT NULL DEFAULT '[]',
    created_at   INTEGER NOT NULL
);
CREATE INDEX phase_answers_run ON phase_answers (run_id, id);

-- Events as they were sent to the UI, after the change they describe.
CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    task_id    TEXT NOT NULL DEFAULT '',
    name       TEXT NOT NULL,
    payload    TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL
);
CREATE INDEX events_run ON events (run_id, id);
