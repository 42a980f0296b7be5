package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Lock says which process drives a run.
type Lock struct {
	RunID string `json:"runId"`
	PID   int    `json:"pid"`
	// Start tells the process from a later one with the same id.
	Start   string    `json:"start,omitempty"`
	Face    string    `json:"face,omitempty"`
	Machine string    `json:"machine,omitempty"`
	Since   time.Time `json:"since"`
}

// holder is the process a lock names.
func (l Lock) holder() [4]any { return [4]any{l.PID, l.Start, l.Face, l.Machine} }

// LockedError is a run another process drives: Holder is its lock.
type LockedError struct{ Holder Lock }

func (e *LockedError) Error() string {
	return fmt.Sprintf("run %s is driven by another process (%d)", e.Holder.RunID, e.Holder.PID)
}

// TakeLock makes l's process the one that drives run l.RunID, in one
// transaction: a lock held by the same process is renewed, a lock whose
// process is gone (stale reports it) is taken over, and a lock another
// live process holds is left alone and returned in a *LockedError.
func (s *Store) TakeLock(ctx context.Context, l Lock, stale func(Lock) bool) error {
	if l.Since.IsZero() {
		l.Since = s.now()
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		held, err := lockOf(ctx, tx, l.RunID)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return err
		case held.holder() != l.holder() && !stale(held):
			return &LockedError{Holder: held}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO run_locks (run_id, pid, start, face, machine, since) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (run_id) DO UPDATE SET pid = excluded.pid, start = excluded.start, face = excluded.face,
			machine = excluded.machine, since = excluded.since`, l.RunID, l.PID, l.Start, l.Face, l.Machine, ms(l.Since))
		if err != nil {
			return fmt.Errorf("lock run %s: %w", l.RunID, err)
		}
		return nil
	})
}

// ReleaseLock lets go of run runID when l's process holds it (a lock
// another process took over meanwhile stays).
func (s *Store) ReleaseLock(ctx context.Context, l Lock) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM run_locks WHERE run_id = ? AND pid = ? AND start = ? AND face = ? AND machine = ?`,
			l.RunID, l.PID, l.Start, l.Face, l.Machine)
		if err != nil {
			return fmt.Errorf("unlock run %s: %w", l.RunID, err)
		}
		return nil
	})
}

// dropLock lets go of run runID whoever holds it: the run has finished.
func dropLock(ctx context.Context, tx *sql.Tx, runID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_locks WHERE run_id = ?`, runID); err != nil {
		return fmt.Errorf("unlock run %s: %w", runID, err)
	}
	return nil
}

// Locks returns the lock of every run that has one, by run id.
func (s *Store) Locks(ctx context.Context) (map[string]Lock, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, pid, start, face, machine, since FROM run_locks`)
	if err != nil {
		return nil, fmt.Errorf("locks: %w", err)
	}
	defer rows.Close()
	out := map[string]Lock{}
	for rows.Next() {
		l, err := scanLock(rows)
		if err != nil {
			return nil, fmt.Errorf("locks: %w", err)
		}
		out[l.RunID] = l
	}
	return out, rows.Err()
}

func lockOf(ctx context.Context, tx *sql.Tx, runID string) (Lock, error) {
	l, err := scanLock(tx.QueryRowContext(ctx, `SELECT run_id, pid, start, face, machine, since FROM run_locks WHERE run_id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		return Lock{}, ErrNotFound
	}
	return l, err
}

func scanLock(sc scanner) (Lock, error) {
	var l Lock
	var since int64
	if err := sc.Scan(&l.RunID, &l.PID, &l.Start, &l.Face, &l.Machine, &since); err != nil {
		return Lock{}, err
	}
	l.Since = fromMS(since)
	return l, nil
}
