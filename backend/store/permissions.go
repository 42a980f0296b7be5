package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PermissionDecision is one answer to a permission prompt of a run: who
// decided (DecidedBy: "user", "rule" or "mode"), what (Decision: "allow" or
// "deny"), by which rule (and where it came from: "settings", "template",
// "run"), for which worker (TaskID, "" for the main session), which tool,
// and a summary of its input.
type PermissionDecision struct {
	ID        int64     `json:"id"`
	TaskID    string    `json:"taskId"`
	At        time.Time `json:"at"`
	Tool      string    `json:"tool"`
	Summary   string    `json:"summary"`
	Decision  string    `json:"decision"`
	DecidedBy string    `json:"decidedBy"`
	Rule      string    `json:"rule,omitempty"`
	Source    string    `json:"source,omitempty"`
}

// PermissionRule is a rule the user added to a run.
type PermissionRule struct {
	Rule    string    `json:"rule"`
	Deny    bool      `json:"deny"`
	AddedAt time.Time `json:"addedAt"`
}

func insertPermissions(ctx context.Context, tx *sql.Tx, runID string, c Change) error {
	for _, d := range c.Decisions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO permission_decisions
			(run_id, task_id, at, tool, summary, decision, decided_by, rule, source) VALUES (?,?,?,?,?,?,?,?,?)`,
			runID, d.TaskID, ms(d.At), d.Tool, d.Summary, d.Decision, d.DecidedBy, d.Rule, d.Source); err != nil {
			return fmt.Errorf("permission decision: %w", err)
		}
	}
	for _, r := range c.Rules {
		if _, err := tx.ExecContext(ctx, `INSERT INTO permission_rules (run_id, rule, deny, added_at) VALUES (?,?,?,?)
			ON CONFLICT DO NOTHING`, runID, r.Rule, r.Deny, ms(r.AddedAt)); err != nil {
			return fmt.Errorf("permission rule: %w", err)
		}
	}
	return nil
}

// PermissionLog returns the permission decisions of run runID, oldest
// first (ErrNotFound for an unknown run).
func (s *Store) PermissionLog(ctx context.Context, runID string) ([]PermissionDecision, error) {
	if err := s.requireRun(ctx, runID); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, task_id, at, tool, summary, decision, decided_by, rule, source
		FROM permission_decisions WHERE run_id = ? ORDER BY id`, runID)
	if err != nil {
		return nil, fmt.Errorf("permission log of %s: %w", runID, err)
	}
	defer rows.Close()
	out := []PermissionDecision{}
	for rows.Next() {
		var d PermissionDecision
		var at int64
		if err := rows.Scan(&d.ID, &d.TaskID, &at, &d.Tool, &d.Summary, &d.Decision, &d.DecidedBy, &d.Rule, &d.Source); err != nil {
			return nil, fmt.Errorf("permission log of %s: %w", runID, err)
		}
		d.At = fromMS(at)
		out = append(out, d)
	}
	return out, rows.Err()
}

// PermissionRules returns the rules the user added to run runID, in the
// order they were added.
func (s *Store) PermissionRules(ctx context.Context, runID string) ([]PermissionRule, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rule, deny, added_at FROM permission_rules WHERE run_id = ? ORDER BY added_at, rowid`, runID)
	if err != nil {
		return nil, fmt.Errorf("permission rules of %s: %w", runID, err)
	}
	defer rows.Close()
	var out []PermissionRule
	for rows.Next() {
		var r PermissionRule
		var at int64
		if err := rows.Scan(&r.Rule, &r.Deny, &at); err != nil {
			return nil, fmt.Errorf("permission rules of %s: %w", runID, err)
		}
		r.AddedAt = fromMS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
