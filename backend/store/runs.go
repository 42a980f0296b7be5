package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
)

const runColumns = `id, template_id, template_name, template, cwd, request, variables, status, resume_status,
	phase, main_session_id, message, error, tasks_total, tasks_completed, tasks_failed, tasks_skipped,
	input_tokens, output_tokens, cost_usd, state, created_at, updated_at, started_at, completed_at, limits, issues, host`

func ms(t time.Time) int64 { return t.UnixMilli() }

func msPtr(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMS(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMS(v.Int64)
	return &t
}

func jsonText(v any, empty string) (string, error) {
	if v == nil {
		return empty, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return empty, nil
	}
	return string(b), nil
}

func rawText(r json.RawMessage, empty string) string {
	if len(r) == 0 {
		return empty
	}
	return string(r)
}

func checkRun(r *Run) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("run has no id: %w", ErrInvalid)
	case !ValidRunStatus(r.Status):
		return fmt.Errorf("run %s: status %q: %w", r.ID, r.Status, ErrInvalidStatus)
	case r.ResumeStatus != "" && !ValidRunStatus(r.ResumeStatus):
		return fmt.Errorf("run %s: resume status %q: %w", r.ID, r.ResumeStatus, ErrInvalidStatus)
	case r.TemplateID == "":
		return fmt.Errorf("run %s has no template: %w", r.ID, ErrInvalid)
	case r.Template != nil && !json.Valid(r.Template):
		return fmt.Errorf("run %s: template is not JSON: %w", r.ID, ErrInvalid)
	case r.State != nil && !json.Valid(r.State):
		return fmt.Errorf("run %s: state is not JSON: %w", r.ID, ErrInvalid)
	}
	return nil
}

// CreateRun stores a new run with the events that announce it.
func (s *Store) CreateRun(ctx context.Context, r Run, events ...Event) error {
	if err := checkRun(&r); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	now := s.now()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
	return s.tx(ctx, func(tx *sql.Tx) error {
		vars, err := jsonText(r.Variables, "{}")
		if err != nil {
			return fmt.Errorf("create run %s: variables: %w", r.ID, err)
		}
		issues, err := jsonText(nonNil(r.Issues), "[]")
		if err != nil {
			return fmt.Errorf("create run %s: issues: %w", r.ID, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO runs (`+runColumns+`) VALUES
			(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			r.ID, r.TemplateID, r.TemplateName, rawText(r.Template, "{}"), r.Cwd, r.Request, vars,
			r.Status, r.ResumeStatus, r.Phase, r.MainSessionID, r.Message, r.Error,
			r.TasksTotal, r.TasksCompleted, r.TasksFailed, r.TasksSkipped,
			r.InputTokens, r.OutputTokens, r.CostUSD, rawText(r.State, "{}"),
			ms(r.CreatedAt), ms(r.UpdatedAt), msPtr(r.StartedAt), msPtr(r.CompletedAt), limitsText(r.Limits), issues, hostText(r.Host))
		if isConstraint(err) {
			return fmt.Errorf("create run %s: %w", r.ID, ErrExists)
		}
		if err != nil {
			return fmt.Errorf("create run %s: %w", r.ID, err)
		}
		return s.insertEvents(ctx, tx, r.ID, events)
	})
}

// Commit writes one change of run runID, events included, in one
// transaction. Bad input (an unknown run, a status the store does not know,
// a worker of an unknown task) is an error and nothing is written.
func (s *Store) Commit(ctx context.Context, runID string, c Change) error {
	if err := s.checkChange(runID, &c); err != nil {
		return fmt.Errorf("commit run %s: %w", runID, err)
	}
	now := s.now()
	return s.tx(ctx, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("commit run %s: run %w", runID, ErrNotFound)
			}
			return fmt.Errorf("commit run %s: %w", runID, err)
		}
		if c.Run != nil {
			if err := s.updateRun(ctx, tx, c.Run, now); err != nil {
				return fmt.Errorf("commit run %s: %w", runID, err)
			}
		}
		if c.ReplaceTasks {
			keep := make([]string, 0, len(c.Tasks))
			for _, t := range c.Tasks {
				keep = append(keep, t.ID)
			}
			kj, _ := json.Marshal(keep)
			if _, err := tx.ExecContext(ctx, `DELETE FROM tasks WHERE run_id = ? AND id NOT IN (SELECT value FROM json_each(?))`, runID, string(kj)); err != nil {
				return fmt.Errorf("commit run %s: replace tasks: %w", runID, err)
			}
		}
		for _, t := range c.Tasks {
			if err := upsertTask(ctx, tx, runID, t); err != nil {
				return fmt.Errorf("commit run %s: %w", runID, err)
			}
		}
		for _, w := range c.Workers {
			if err := upsertWorker(ctx, tx, runID, w, now); err != nil {
				return fmt.Errorf("commit run %s: %w", runID, err)
			}
		}
		for _, a := range c.Answers {
			if err := insertAnswer(ctx, tx, runID, a, now); err != nil {
				return fmt.Errorf("commit run %s: %w", runID, err)
			}
		}
		for _, cr := range c.Checks {
			if err := upsertCheck(ctx, tx, runID, cr, now); err != nil {
				return fmt.Errorf("commit run %s: %w", runID, err)
			}
		}
		if c.FinalReport != nil {
			if _, err := tx.ExecContext(ctx, `INSERT INTO final_reports (run_id, report, created_at) VALUES (?,?,?)
				ON CONFLICT (run_id) DO UPDATE SET report = excluded.report, created_at = excluded.created_at`,
				runID, string(c.FinalReport), ms(now)); err != nil {
				return fmt.Errorf("commit run %s: final report: %w", runID, err)
			}
		}
		return s.insertEvents(ctx, tx, runID, c.Events)
	})
}

// Interrupt stores that a run stopped because it could not go on (its host
// or its store failed): the status becomes interrupted, the status it was in
// is kept as its resume status, and the reason is its message and one
// run:interrupted event row. Nothing else of the run changes, so what was
// stored before stays true. A finished run is left as it is (ErrInvalidStatus).
// ev, when its Name is set, is stored as the event row (its payload as
// given); else a "run:interrupted" row is.
func (s *Store) Interrupt(ctx context.Context, runID, reason string, ev Event) error {
	if ev.Name == "" {
		payload, _ := json.Marshal(map[string]string{"runId": runID, "status": "interrupted", "message": reason})
		ev = Event{Name: "run:interrupted", Payload: payload}
	}
	ev.RunID = runID
	now := s.now()
	return s.tx(ctx, func(tx *sql.Tx) error {
		var status, resume string
		if err := tx.QueryRowContext(ctx, `SELECT status, resume_status FROM runs WHERE id = ?`, runID).Scan(&status, &resume); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("interrupt run %s: %w", runID, ErrNotFound)
			}
			return fmt.Errorf("interrupt run %s: %w", runID, err)
		}
		if Finished(status) {
			return fmt.Errorf("interrupt run %s: it is %s: %w", runID, status, ErrInvalidStatus)
		}
		if status != "paused" && status != "interrupted" {
			resume = status
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'interrupted', resume_status = ?, message = ?, updated_at = ? WHERE id = ?`,
			resume, reason, ms(now), runID); err != nil {
			return fmt.Errorf("interrupt run %s: %w", runID, err)
		}
		return s.insertEvents(ctx, tx, runID, []Event{ev})
	})
}

func (s *Store) checkChange(runID string, c *Change) error {
	if runID == "" {
		return fmt.Errorf("empty run id: %w", ErrInvalid)
	}
	if c.Run != nil {
		if c.Run.ID != runID {
			return fmt.Errorf("run row is for %q: %w", c.Run.ID, ErrInvalid)
		}
		if err := checkRun(c.Run); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, t := range c.Tasks {
		switch {
		case t.ID == "":
			return fmt.Errorf("task without id: %w", ErrInvalid)
		case t.RunID != "" && t.RunID != runID:
			return fmt.Errorf("task %s is of run %q: %w", t.ID, t.RunID, ErrInvalid)
		case seen[t.ID]:
			return fmt.Errorf("task %s listed twice: %w", t.ID, ErrInvalid)
		}
		seen[t.ID] = true
	}
	for _, w := range c.Workers {
		switch {
		case w.TaskID == "":
			return fmt.Errorf("worker without task id: %w", ErrInvalid)
		case w.RunID != "" && w.RunID != runID:
			return fmt.Errorf("worker %s is of run %q: %w", w.TaskID, w.RunID, ErrInvalid)
		case !ValidWorkerStatus(w.Status):
			return fmt.Errorf("worker %s: status %q: %w", w.TaskID, w.Status, ErrInvalidStatus)
		case w.State != nil && !json.Valid(w.State):
			return fmt.Errorf("worker %s: state is not JSON: %w", w.TaskID, ErrInvalid)
		}
	}
	for _, a := range c.Answers {
		if a.Phase == "" || a.Status == "" {
			return fmt.Errorf("phase answer without phase or status: %w", ErrInvalid)
		}
		if a.Data != nil && !json.Valid(a.Data) {
			return fmt.Errorf("phase answer %s: data is not JSON: %w", a.Phase, ErrInvalid)
		}
	}
	for _, cr := range c.Checks {
		if cr.Command == "" || cr.Status == "" || cr.Round < 0 {
			return fmt.Errorf("check result without command, status or round: %w", ErrInvalid)
		}
	}
	for _, e := range c.Events {
		if e.Name == "" {
			return fmt.Errorf("event without name: %w", ErrInvalid)
		}
		if e.Payload != nil && !json.Valid(e.Payload) {
			return fmt.Errorf("event %s: payload is not JSON: %w", e.Name, ErrInvalid)
		}
	}
	if c.FinalReport != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(c.FinalReport, &obj) != nil || obj == nil {
			return fmt.Errorf("final report is not a JSON object: %w", ErrInvalid)
		}
		if c.Run == nil || !Finished(c.Run.Status) {
			return fmt.Errorf("a final report comes only with the change that finishes the run: %w", ErrInvalid)
		}
	}
	return nil
}

func (s *Store) updateRun(ctx context.Context, tx *sql.Tx, r *Run, now time.Time) error {
	vars, err := jsonText(r.Variables, "{}")
	if err != nil {
		return fmt.Errorf("variables: %w", err)
	}
	issues, err := jsonText(nonNil(r.Issues), "[]")
	if err != nil {
		return fmt.Errorf("issues: %w", err)
	}
	r.UpdatedAt = now
	// Template, cwd, request and creation time are fixed at creation.
	res, err := tx.ExecContext(ctx, `UPDATE runs SET template_name = ?, variables = ?, status = ?, resume_status = ?,
		phase = ?, main_session_id = ?, message = ?, error = ?, tasks_total = ?, tasks_completed = ?,
		tasks_failed = ?, tasks_skipped = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?, state = ?,
		updated_at = ?, started_at = ?, completed_at = ?, limits = ?, issues = ?, host = ? WHERE id = ?`,
		r.TemplateName, vars, r.Status, r.ResumeStatus, r.Phase, r.MainSessionID, r.Message, r.Error,
		r.TasksTotal, r.TasksCompleted, r.TasksFailed, r.TasksSkipped, r.InputTokens, r.OutputTokens,
		r.CostUSD, rawText(r.State, "{}"), ms(now), msPtr(r.StartedAt), msPtr(r.CompletedAt), limitsText(r.Limits), issues,
		hostText(r.Host), r.ID)
	if err != nil {
		return fmt.Errorf("update run: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("update run: run %w", ErrNotFound)
	}
	if Finished(r.Status) {
		return dropLock(ctx, tx, r.ID) // nobody drives a finished run
	}
	return nil
}

func upsertTask(ctx context.Context, tx *sql.Tx, runID string, t Task) error {
	scope, err := jsonText(nonNil(t.Scope), "[]")
	if err != nil {
		return err
	}
	deps, err := jsonText(nonNil(t.Dependencies), "[]")
	if err != nil {
		return err
	}
	skills, err := jsonText(nonNil(t.Skills), "[]")
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO tasks (run_id, id, position, title, description, scope, priority,
		dependencies, complexity, skipped, definition, skills) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (run_id, id) DO UPDATE SET position = excluded.position, title = excluded.title,
		description = excluded.description, scope = excluded.scope, priority = excluded.priority,
		dependencies = excluded.dependencies, complexity = excluded.complexity, skipped = excluded.skipped,
		definition = excluded.definition, skills = excluded.skills`,
		runID, t.ID, t.Position, t.Title, t.Description, scope, t.Priority, deps, t.Complexity, t.Skipped,
		rawText(t.Definition, "{}"), skills)
	if err != nil {
		return fmt.Errorf("task %s: %w", t.ID, err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func upsertWorker(ctx context.Context, tx *sql.Tx, runID string, w Worker, now time.Time) error {
	tools, err := jsonText(w.Tools, "{}")
	if err != nil {
		return err
	}
	files, err := jsonText(nonNil(w.OutputFiles), "[]")
	if err != nil {
		return err
	}
	waiting := ""
	if w.Waiting != nil {
		if waiting, err = jsonText(w.Waiting, ""); err != nil {
			return err
		}
	}
	questions, err := jsonText(nonNil(w.Questions), "[]")
	if err != nil {
		return err
	}
	conflicts, err := jsonText(nonNil(w.Conflicts), "[]")
	if err != nil {
		return err
	}
	missing, err := jsonText(nonNil(w.MissingOutputs), "[]")
	if err != nil {
		return err
	}
	outside, err := jsonText(nonNil(w.OutOfScope), "[]")
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO workers (run_id, task_id, session_id, status, retry_count, progress,
		current_action, tools, summary, output, output_files, error, unstructured, skipped, waiting,
		input_tokens, output_tokens, cost_usd, state, started_at, completed_at, last_activity_at, updated_at,
		questions, conflicts, model, missing_outputs, out_of_scope)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (run_id, task_id) DO UPDATE SET session_id = excluded.session_id, status = excluded.status,
		retry_count = excluded.retry_count, progress = excluded.progress, current_action = excluded.current_action,
		tools = excluded.tools, summary = excluded.summary, output = excluded.output,
		output_files = excluded.output_files, error = excluded.error, unstructured = excluded.unstructured,
		skipped = excluded.skipped, waiting = excluded.waiting, input_tokens = excluded.input_tokens,
		output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd, state = excluded.state,
		started_at = excluded.started_at, completed_at = excluded.completed_at,
		last_activity_at = excluded.last_activity_at, updated_at = excluded.updated_at,
		questions = excluded.questions, conflicts = excluded.conflicts, model = excluded.model,
		missing_outputs = excluded.missing_outputs, out_of_scope = excluded.out_of_scope`,
		runID, w.TaskID, w.SessionID, w.Status, w.RetryCount, w.Progress, w.CurrentAction, tools, w.Summary,
		w.Output, files, w.Error, w.Unstructured, w.Skipped, waiting, w.InputTokens, w.OutputTokens, w.CostUSD,
		rawText(w.State, "{}"), msPtr(w.StartedAt), msPtr(w.CompletedAt), msPtr(w.LastActivityAt), ms(now),
		questions, conflicts, w.Model, missing, outside)
	if isConstraint(err) {
		return fmt.Errorf("worker %s: no such task: %w", w.TaskID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("worker %s: %w", w.TaskID, err)
	}
	return nil
}

func insertAnswer(ctx context.Context, tx *sql.Tx, runID string, a PhaseAnswer, now time.Time) error {
	repairs, err := jsonText(nonNil(a.Repairs), "[]")
	if err != nil {
		return err
	}
	errs, err := jsonText(nonNil(a.Errors), "[]")
	if err != nil {
		return err
	}
	created := a.CreatedAt
	if created.IsZero() {
		created = now
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO phase_answers (run_id, phase, attempt, status, data, repairs, errors, created_at)
		VALUES (?,?,?,?,?,?,?,?)`, runID, a.Phase, a.Attempt, a.Status, rawText(a.Data, "null"), repairs, errs, ms(created))
	if err != nil {
		return fmt.Errorf("phase answer %s: %w", a.Phase, err)
	}
	return nil
}

func (s *Store) insertEvents(ctx context.Context, tx *sql.Tx, runID string, events []Event) error {
	for _, e := range events {
		if e.Name == "" {
			return fmt.Errorf("event without name: %w", ErrInvalid)
		}
		created := e.CreatedAt
		if created.IsZero() {
			created = s.now()
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO events (run_id, task_id, name, payload, created_at) VALUES (?,?,?,?,?)`,
			runID, e.TaskID, e.Name, rawText(e.Payload, "{}"), ms(created)); err != nil {
			return fmt.Errorf("event %s: %w", e.Name, err)
		}
	}
	return nil
}

// tx runs fn in one transaction. A transaction that fails because another
// writer holds the database (SQLite's busy timeout ran out) is retried with
// a capped backoff until the store's retry window is over; only then is the
// error returned. fn must be repeatable: it is called again on a retry.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	deadline := time.Now().Add(s.retryWindow)
	wait := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := s.tx1(ctx, fn)
		if err == nil || !isBusy(err) || !time.Now().Before(deadline) {
			if err != nil && attempt > 1 {
				err = fmt.Errorf("after %d attempts: %w", attempt, err)
			}
			return err
		}
		s.logger.Warn("the database is busy; retrying", "attempt", attempt, "err", err)
		t := time.NewTimer(min(wait, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		wait = min(wait*2, time.Second)
	}
}

// Writable reports whether a change can be written now: one attempt to
// take the write lock within SQLite's busy timeout, without the retries a
// change gets. A database another program holds locked is an ErrBusy.
func (s *Store) Writable(ctx context.Context) error {
	err := s.tx1(ctx, func(*sql.Tx) error { return nil })
	if isBusy(err) {
		return fmt.Errorf("%w (it stayed busy for %s): %w", ErrBusy, s.busyTimeout, err)
	}
	return err
}

func (s *Store) tx1(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

type scanner interface{ Scan(...any) error }

func scanRun(sc scanner) (Run, error) {
	var r Run
	var tmpl, vars, state, limits, issues, host string
	var started, completed sql.NullInt64
	var created, updated int64
	err := sc.Scan(&r.ID, &r.TemplateID, &r.TemplateName, &tmpl, &r.Cwd, &r.Request, &vars, &r.Status,
		&r.ResumeStatus, &r.Phase, &r.MainSessionID, &r.Message, &r.Error, &r.TasksTotal, &r.TasksCompleted,
		&r.TasksFailed, &r.TasksSkipped, &r.InputTokens, &r.OutputTokens, &r.CostUSD, &state, &created,
		&updated, &started, &completed, &limits, &issues, &host)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(host), &r.Host); err != nil {
		return r, fmt.Errorf("run %s: host: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(limits), &r.Limits); err != nil {
		return r, fmt.Errorf("run %s: limits: %w", r.ID, err)
	}
	r.Template = json.RawMessage(tmpl)
	r.State = json.RawMessage(state)
	if err := json.Unmarshal([]byte(vars), &r.Variables); err != nil {
		return r, fmt.Errorf("run %s: variables: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(issues), &r.Issues); err != nil {
		return r, fmt.Errorf("run %s: issues: %w", r.ID, err)
	}
	if r.Issues == nil {
		r.Issues = []string{}
	}
	r.CreatedAt, r.UpdatedAt = fromMS(created), fromMS(updated)
	r.StartedAt, r.CompletedAt = fromNullMS(started), fromNullMS(completed)
	return r, nil
}

// Run returns run id.
func (s *Store) Run(ctx context.Context, id string) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("run %s: %w", id, err)
	}
	return r, nil
}

// Unfinished returns the runs that are not completed, cancelled or in error,
// oldest first: the runs to restore on start.
func (s *Store) Unfinished(ctx context.Context) ([]Run, error) {
	args := make([]any, len(finishedRunStatuses))
	for i, st := range finishedRunStatuses {
		args[i] = st
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs
		WHERE status NOT IN (?`+strings.Repeat(", ?", len(args)-1)+`) ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("unfinished runs: %w", err)
	}
	return collectRuns(rows)
}

func collectRuns(rows *sql.Rows) ([]Run, error) {
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *Store) requireRun(ctx context.Context, id string) error {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	return err
}

// Tasks returns the tasks of run runID in plan order.
func (s *Store) Tasks(ctx context.Context, runID string) ([]Task, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, id, position, title, description, scope, priority,
		dependencies, complexity, skipped, definition, skills FROM tasks WHERE run_id = ? ORDER BY position, id`, runID)
	if err != nil {
		return nil, fmt.Errorf("tasks of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		var t Task
		var scope, deps, def, skills string
		if err := rows.Scan(&t.RunID, &t.ID, &t.Position, &t.Title, &t.Description, &scope, &t.Priority,
			&deps, &t.Complexity, &t.Skipped, &def, &skills); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(scope), &t.Scope), json.Unmarshal([]byte(deps), &t.Dependencies),
			json.Unmarshal([]byte(skills), &t.Skills)); err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		t.Definition = json.RawMessage(def)
		out = append(out, t)
	}
	return out, rows.Err()
}

// Workers returns the workers of run runID in plan order of their tasks.
func (s *Store) Workers(ctx context.Context, runID string) ([]Worker, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT w.run_id, w.task_id, w.session_id, w.status, w.retry_count,
		w.progress, w.current_action, w.tools, w.summary, w.output, w.output_files, w.error, w.unstructured,
		w.skipped, w.waiting, w.input_tokens, w.output_tokens, w.cost_usd, w.state, w.started_at,
		w.completed_at, w.last_activity_at, w.updated_at, w.questions, w.conflicts, w.model,
		w.missing_outputs, w.out_of_scope
		FROM workers w JOIN tasks t ON t.run_id = w.run_id AND t.id = w.task_id
		WHERE w.run_id = ? ORDER BY t.position, t.id`, runID)
	if err != nil {
		return nil, fmt.Errorf("workers of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Worker{}
	for rows.Next() {
		var w Worker
		var tools, files, waiting, state, questions, conflicts, missing, outside string
		var started, completed, activity sql.NullInt64
		var updated int64
		if err := rows.Scan(&w.RunID, &w.TaskID, &w.SessionID, &w.Status, &w.RetryCount, &w.Progress,
			&w.CurrentAction, &tools, &w.Summary, &w.Output, &files, &w.Error, &w.Unstructured, &w.Skipped,
			&waiting, &w.InputTokens, &w.OutputTokens, &w.CostUSD, &state, &started, &completed, &activity,
			&updated, &questions, &conflicts, &w.Model, &missing, &outside); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(tools), &w.Tools), json.Unmarshal([]byte(files), &w.OutputFiles),
			json.Unmarshal([]byte(questions), &w.Questions), json.Unmarshal([]byte(conflicts), &w.Conflicts),
			json.Unmarshal([]byte(missing), &w.MissingOutputs), json.Unmarshal([]byte(outside), &w.OutOfScope)); err != nil {
			return nil, fmt.Errorf("worker %s: %w", w.TaskID, err)
		}
		if waiting != "" {
			w.Waiting = &Permission{}
			if err := json.Unmarshal([]byte(waiting), w.Waiting); err != nil {
				return nil, fmt.Errorf("worker %s: waiting: %w", w.TaskID, err)
			}
		}
		w.State = json.RawMessage(state)
		w.StartedAt, w.CompletedAt, w.LastActivityAt = fromNullMS(started), fromNullMS(completed), fromNullMS(activity)
		w.UpdatedAt = fromMS(updated)
		out = append(out, w)
	}
	return out, rows.Err()
}

// Answers returns the phase answers of run runID in the order they came.
func (s *Store) Answers(ctx context.Context, runID string) ([]PhaseAnswer, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, run_id, phase, attempt, status, data, repairs, errors, created_at
		FROM phase_answers WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("answers of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []PhaseAnswer{}
	for rows.Next() {
		var a PhaseAnswer
		var data, repairs, errs string
		var created int64
		if err := rows.Scan(&a.ID, &a.RunID, &a.Phase, &a.Attempt, &a.Status, &data, &repairs, &errs, &created); err != nil {
			return nil, err
		}
		if err := errors.Join(json.Unmarshal([]byte(repairs), &a.Repairs), json.Unmarshal([]byte(errs), &a.Errors)); err != nil {
			return nil, fmt.Errorf("answer %d: %w", a.ID, err)
		}
		a.Data = json.RawMessage(data)
		a.CreatedAt = fromMS(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// Events returns up to limit events of run runID with an id above afterID,
// oldest first (limit ≤ 0 means 1000).
func (s *Store) Events(ctx context.Context, runID string, afterID int64, limit int) ([]Event, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, run_id, task_id, name, payload, created_at FROM events
		WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?`, runID, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		var e Event
		var payload string
		var created int64
		if err := rows.Scan(&e.ID, &e.RunID, &e.TaskID, &e.Name, &payload, &created); err != nil {
			return nil, err
		}
		e.Payload = json.RawMessage(payload)
		e.CreatedAt = fromMS(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// FinalReport returns the final report stored when run runID finished:
// ErrNotFound for an unknown run, ErrNoReport for a run without one.
func (s *Store) FinalReport(ctx context.Context, runID string) (json.RawMessage, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	var report string
	err := s.db.QueryRowContext(ctx, `SELECT report FROM final_reports WHERE run_id = ?`, runID).Scan(&report)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %s: %w", runID, ErrNoReport)
	}
	if err != nil {
		return nil, fmt.Errorf("final report of %s: %w", runID, err)
	}
	return json.RawMessage(report), nil
}

// DeleteRun removes run id with its tasks, workers, answers and events.
func (s *Store) DeleteRun(ctx context.Context, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("delete run %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("delete run %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// Runs returns one page of history, newest first. Text search uses the FTS4
// index of the request (every word, as a prefix).
func (s *Store) Runs(ctx context.Context, q HistoryQuery) (Page, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	if q.Limit > 500 {
		q.Limit = 500
	}
	if q.Offset < 0 {
		return Page{}, fmt.Errorf("history: negative offset: %w", ErrInvalid)
	}
	var where []string
	var args []any
	if len(q.Status) > 0 {
		ph := make([]string, len(q.Status))
		for i, st := range q.Status {
			if !ValidRunStatus(st) {
				return Page{}, fmt.Errorf("history: status %q: %w", st, ErrInvalidStatus)
			}
			ph[i] = "?"
			args = append(args, st)
		}
		where = append(where, "status IN ("+strings.Join(ph, ",")+")")
	}
	if q.TemplateID != "" {
		where = append(where, "template_id = ?")
		args = append(args, q.TemplateID)
	}
	if !q.From.IsZero() {
		where = append(where, "created_at >= ?")
		args = append(args, ms(q.From))
	}
	if !q.To.IsZero() {
		where = append(where, "created_at < ?")
		args = append(args, ms(q.To))
	}
	if strings.TrimSpace(q.Text) != "" {
		match := ftsQuery(q.Text)
		if match == "" {
			return Page{Runs: []Run{}, Limit: q.Limit, Offset: q.Offset, NextOffset: -1}, nil
		}
		where = append(where, "rowid IN (SELECT docid FROM runs_fts WHERE runs_fts MATCH ?)")
		args = append(args, match)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM runs`+cond, args...).Scan(&total); err != nil {
		return Page{}, fmt.Errorf("history: %w", err)
	}
	order := ""
	switch q.Sort {
	case "":
	case "cost":
		order = "cost_usd DESC, "
	case "cost_asc":
		order = "cost_usd ASC, "
	default:
		return Page{}, fmt.Errorf("history: sort %q: use cost or cost_asc", q.Sort)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs`+cond+
		` ORDER BY `+order+`created_at DESC, id DESC LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return Page{}, fmt.Errorf("history: %w", err)
	}
	runs, err := collectRuns(rows)
	if err != nil {
		return Page{}, fmt.Errorf("history: %w", err)
	}
	next := q.Offset + len(runs)
	if next >= total || len(runs) == 0 {
		next = -1
	}
	return Page{Runs: runs, Total: total, Limit: q.Limit, Offset: q.Offset, NextOffset: next}, nil
}

// ftsQuery turns free text into an FTS4 query: every word, as a prefix.
// Only letters and digits survive, so user text cannot form query syntax.
func ftsQuery(text string) string {
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = strings.ToLower(w) + "*"
	}
	return strings.Join(words, " ")
}

// hostText is a run's host as stored.
func hostText(h RunHost) string {
	b, err := json.Marshal(h)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func upsertCheck(ctx context.Context, tx *sql.Tx, runID string, c CheckResult, now time.Time) error {
	created := c.CreatedAt
	if created.IsZero() {
		created = now
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO check_results (run_id, round, position, name, command, status,
		exit_code, duration_ms, output_tail, message, verdict, dir, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT (run_id, round, position) DO UPDATE SET name = excluded.name, command = excluded.command,
		status = excluded.status, exit_code = excluded.exit_code, duration_ms = excluded.duration_ms,
		output_tail = excluded.output_tail, message = excluded.message, verdict = excluded.verdict,
		dir = excluded.dir, created_at = excluded.created_at`,
		runID, c.Round, c.Position, c.Name, c.Command, c.Status, c.ExitCode, c.DurationMS, c.Tail, c.Message,
		c.Verdict, c.Dir, ms(created))
	if err != nil {
		return fmt.Errorf("check %q of round %d: %w", c.Command, c.Round, err)
	}
	return nil
}

// Checks returns the results of the checks Baton ran for run runID, by
// round (the baseline first) and position.
func (s *Store) Checks(ctx context.Context, runID string) ([]CheckResult, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, round, position, name, command, status, exit_code,
		duration_ms, output_tail, message, verdict, dir, created_at FROM check_results WHERE run_id = ?
		ORDER BY round, position`, runID)
	if err != nil {
		return nil, fmt.Errorf("checks of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []CheckResult{}
	for rows.Next() {
		var c CheckResult
		var created int64
		if err := rows.Scan(&c.RunID, &c.Round, &c.Position, &c.Name, &c.Command, &c.Status, &c.ExitCode,
			&c.DurationMS, &c.Tail, &c.Message, &c.Verdict, &c.Dir, &created); err != nil {
			return nil, err
		}
		c.CreatedAt = fromMS(created)
		out = append(out, c)
	}
	return out, rows.Err()
}

// limitsText is a run's limits as stored.
func limitsText(l RunLimits) string {
	b, err := json.Marshal(l)
	if err != nil {
		return "{}"
	}
	return string(b)
}
