// Package store keeps Baton's history in one SQLite file: runs, their tasks,
// workers, phase answers and events. Every change is one transaction that
// carries the events describing it, so what the UI hears about is already on
// disk.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	_ "github.com/mattn/go-sqlite3" // the SQLite driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Sentinel errors, to test with errors.Is.
var (
	ErrNotFound      = errors.New("not found")
	ErrExists        = errors.New("already exists")
	ErrInvalidStatus = errors.New("invalid status")
	ErrInvalid       = errors.New("invalid input")
	ErrClosed        = errors.New("store is closed")
	// ErrNoReport: the run exists but has no final report (it has not
	// finished, or it finished before Baton stored final reports).
	ErrNoReport = errors.New("no final report")
	// ErrBusy: another program holds the database's write lock.
	ErrBusy = errors.New("the history database is locked by another program")
)

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db          *sql.DB
	logger      *slog.Logger
	now         func() time.Time
	busyTimeout time.Duration
	retryWindow time.Duration
}

// Defaults of how long a write waits for another writer: SQLite's busy
// timeout for one attempt, then retries with backoff until the window ends.
const (
	DefaultBusyTimeout = 5 * time.Second
	DefaultRetryWindow = 60 * time.Second
)

// WithRetry sets SQLite's busy timeout for one attempt and the window in
// which a transaction that found the database busy is retried
// (DefaultBusyTimeout, DefaultRetryWindow).
func WithRetry(busyTimeout, window time.Duration) Option {
	return func(s *Store) {
		s.busyTimeout, s.retryWindow = busyTimeout, window
	}
}

// Option changes how Open sets up a Store.
type Option func(*Store)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(s *Store) {
		if l != nil {
			s.logger = l
		}
	}
}

// DefaultPath returns where the database lives: $BATON_CONFIG_DIR/baton.db
// when that variable is set, else os.UserConfigDir()/baton/baton.db.
func DefaultPath() (string, error) {
	if dir := os.Getenv("BATON_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "baton.db"), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory: %w", err)
	}
	return filepath.Join(dir, "baton", "baton.db"), nil
}

// Open opens (creating if needed, mode 0600) the database at path and applies
// every migration it has not seen yet.
func Open(path string, opts ...Option) (*Store, error) {
	s := &Store{logger: slog.Default(), now: time.Now, busyTimeout: DefaultBusyTimeout, retryWindow: DefaultRetryWindow}
	for _, o := range opts {
		o(s)
	}
	s.logger = s.logger.With("component", "store")
	if path == "" {
		return nil, fmt.Errorf("open store: empty path: %w", ErrInvalid)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// Create the file ourselves so that it is 0600 from the first byte. An
	// existing file keeps its mode until it has opened as Baton's database:
	// a file Baton cannot use is left exactly as it was.
	created := false
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case err == nil:
		created = true
		if err := f.Close(); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	case errors.Is(err, fs.ErrExist):
	default:
		return nil, fmt.Errorf("open store: %w", err)
	}
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", strconv.FormatInt(max(s.busyTimeout.Milliseconds(), 1), 10))
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// One writer at a time is what SQLite allows anyway; a small pool lets
	// readers run beside it under WAL.
	db.SetMaxOpenConns(4)
	s.db = db
	if err := s.check(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if err := s.migrate(); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if !created {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, errors.Join(fmt.Errorf("open store: %w", err), db.Close())
		}
	}
	return s, nil
}

func (s *Store) check() error {
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("open store: journal mode is %s, not wal", mode)
	}
	var fk int
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	if fk != 1 {
		return errors.New("open store: foreign keys are off")
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	return s.db.Close()
}

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version and '_'", name)
		}
		b, err := migrationFiles.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := range out {
		if out[i].version != i+1 {
			return nil, fmt.Errorf("migration %s: versions must be 1, 2, 3… without gaps", out[i].name)
		}
	}
	return out, nil
}

// SchemaVersion returns the version of the newest migration applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, err
}

func (s *Store) migrate() error {
	if _, err := s.db.Exec(`CREATE TABLE IF NOT EXISTS schema_version (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	current, err := s.SchemaVersion(context.Background())
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("migrate: the database has schema version %d, newer than this Baton (%d)", current, len(ms))
	}
	for _, m := range ms[current:] {
		tx, err := s.db.Begin()
		if err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		if _, err := tx.Exec(m.sql); err != nil {
			return errors.Join(fmt.Errorf("migrate %s: %w", m.name, err), tx.Rollback())
		}
		if _, err := tx.Exec(`INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, s.now().UnixMilli()); err != nil {
			return errors.Join(fmt.Errorf("migrate %s: %w", m.name, err), tx.Rollback())
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate %s: %w", m.name, err)
		}
		s.logger.Info("migration applied", "version", m.version, "name", m.name)
	}
	return nil
}
