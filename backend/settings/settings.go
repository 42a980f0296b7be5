// Package settings keeps the user's settings in settings.json in Baton's
// config directory: human-editable, written atomically, unknown keys kept.
// A file that cannot be read is reported and left as it is while the
// defaults are used.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/baton-app/baton/backend/atomicfile"
	"github.com/baton-app/baton/backend/permrules"
)

// Host names the session host Baton drives: one of the kinds that
// backend/hosts registers, which check it (a Check given to Open); the
// settings know only the names of the kinds Baton ships.
type Host string

const (
	// HostSimulator is the embedded simulator ("Simulator — no AI").
	HostSimulator Host = "simulator"
	// HostDesktop is Claude Desktop reached over its CDP endpoint.
	HostDesktop Host = "desktop"
	// HostClaudeCode runs every session as a Claude Code CLI process
	// ("Claude Code (CLI)").
	HostClaudeCode Host = "claude-code"
)

// Theme chooses light or dark; "system" follows the operating system.
type Theme string

const (
	ThemeSystem Theme = "system"
	ThemeLight  Theme = "light"
	ThemeDark   Theme = "dark"
)

// MaxRecentFolders bounds the list of recently used project folders.
const MaxRecentFolders = 10

// Settings are the user's choices. Field names are the keys of settings.json.
type Settings struct {
	Host           Host   `json:"host"`
	CDPEndpoint    string `json:"cdpEndpoint"`
	AllowRemoteCDP bool   `json:"allowRemoteCdp"`
	// PagePattern picks Claude Desktop's page by a part of its URL; empty
	// means the usual ones (claude.ai, app://localhost, the simulator).
	PagePattern    string   `json:"pagePattern"`
	ChromePath     string   `json:"chromePath"`
	Headless       bool     `json:"headless"`
	PollIntervalMs int      `json:"pollIntervalMs"`
	Notifications  bool     `json:"notifications"`
	Theme          Theme    `json:"theme"`
	RecentFolders  []string `json:"recentFolders"`
	// ClaudePath is the Claude Code CLI the claude-code host runs; empty
	// means "claude" on PATH.
	ClaudePath string `json:"claudePath"`
	// ReconnectForSeconds is how long a run waits for a session host whose
	// connection was lost ("reconnecting") before it stops as interrupted.
	ReconnectForSeconds int `json:"reconnectForSeconds"`
	// AutoResumeAfterLimit: a run that waits for a rate, overload or usage
	// limit goes on by itself once it resets (default true); when false it
	// waits for Resume now in the Inbox.
	AutoResumeAfterLimit bool `json:"autoResumeAfterLimit"`
	// Permissions are the user's allow and deny rules (Claude Code's
	// syntax) that Baton answers prompts by in every run.
	Permissions permrules.Lists `json:"permissions"`
}

// Reconnect bounds of ReconnectForSeconds.
const (
	DefaultReconnectForSeconds = 120
	MaxReconnectForSeconds     = 3600
)

// Defaults returns the settings of a new installation.
func Defaults() Settings {
	return Settings{
		Host:           HostSimulator,
		CDPEndpoint:    "http://127.0.0.1:9222",
		PagePattern:    "",
		Headless:       true,
		PollIntervalMs: 2000,
		Notifications:  true,
		// A lost host is waited for two minutes.
		ReconnectForSeconds: DefaultReconnectForSeconds,
		Theme:               ThemeSystem,
		RecentFolders:       []string{},

		AutoResumeAfterLimit: true,
	}
}

// Sentinel errors, tested with errors.Is.
var (
	// ErrInvalid marks a setting with a value Baton cannot use.
	ErrInvalid = errors.New("invalid setting")
	// ErrBroken marks a settings.json that could not be read; it is left
	// untouched until the user fixes it or resets it.
	ErrBroken = errors.New("settings file unreadable")
)

// Validate returns an error naming the first setting that cannot be used,
// of those the settings check themselves: the host is checked by the host
// kinds (see Check).
func (s Settings) Validate() error {
	if s.Host == "" {
		return fmt.Errorf("%w: no session host is chosen", ErrInvalid)
	}
	u, err := url.Parse(s.CDPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "ws") || u.Host == "" {
		return fmt.Errorf("%w: the CDP endpoint must be a URL such as http://127.0.0.1:9222, not %q", ErrInvalid, s.CDPEndpoint)
	}
	if s.PollIntervalMs < 100 || s.PollIntervalMs > 60000 {
		return fmt.Errorf("%w: the poll interval must be between 100 and 60000 milliseconds, not %d", ErrInvalid, s.PollIntervalMs)
	}
	if s.ReconnectForSeconds < 1 || s.ReconnectForSeconds > MaxReconnectForSeconds {
		return fmt.Errorf("%w: the time to wait for a lost host must be between 1 and %d seconds, not %d", ErrInvalid, MaxReconnectForSeconds, s.ReconnectForSeconds)
	}
	switch s.Theme {
	case ThemeSystem, ThemeLight, ThemeDark:
	default:
		return fmt.Errorf("%w: theme must be \"system\", \"light\" or \"dark\", not %q", ErrInvalid, s.Theme)
	}
	if err := s.Permissions.Check(); err != nil {
		return fmt.Errorf("%w: the permission rules: %w", ErrInvalid, err)
	}
	if len(s.RecentFolders) > MaxRecentFolders {
		return fmt.Errorf("%w: at most %d recent folders are kept", ErrInvalid, MaxRecentFolders)
	}
	return nil
}

// A Check is a rule that another package adds to the settings' own
// (Validate): the host kinds check the host. It returns an ErrInvalid
// error naming the problem.
type Check func(Settings) error

// Store reads and writes settings.json. It is safe for concurrent use.
type Store struct {
	path   string
	checks []Check

	mu      sync.Mutex
	current Settings
	extra   map[string]json.RawMessage // keys Baton does not know, kept as written
	broken  error                      // why the file could not be read, or nil
}

// Check validates next: the settings' own rules, then the checks.
func (s *Store) Check(next Settings) error {
	if err := next.Validate(); err != nil {
		return err
	}
	for _, c := range s.checks {
		if err := c(next); err != nil {
			return err
		}
	}
	return nil
}

// DefaultPath returns $BATON_CONFIG_DIR/settings.json when that variable is
// set, else os.UserConfigDir()/baton/settings.json.
func DefaultPath() (string, error) {
	if d := os.Getenv("BATON_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config directory: %w", err)
	}
	return filepath.Join(d, "baton", "settings.json"), nil
}

// Open reads the settings at path, checking them with checks besides
// Validate. A missing file gives the defaults. A file that cannot be used
// gives the defaults too, and Problem reports why; the file is not written
// until Reset.
func Open(path string, checks ...Check) *Store {
	s := &Store{path: path, checks: checks}
	s.current, s.extra, s.broken = s.load()
	return s
}

func (s *Store) load() (Settings, map[string]json.RawMessage, error) {
	path := s.path
	defaults := Defaults()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return defaults, map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return defaults, map[string]json.RawMessage{}, fmt.Errorf("%w: %s could not be read (%v); Baton uses its defaults until it can", ErrBroken, path, err)
	}
	raw := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &raw); err != nil {
		return defaults, map[string]json.RawMessage{}, fmt.Errorf("%w: %s is not valid JSON (%v); Baton uses its defaults and leaves the file as it is until you fix or reset it", ErrBroken, path, describeJSONError(data, err))
	}
	got := defaults
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&got); err != nil {
		return defaults, map[string]json.RawMessage{}, fmt.Errorf("%w: %s has a value of the wrong type (%v); Baton uses its defaults and leaves the file as it is until you fix or reset it", ErrBroken, path, err)
	}
	if got.RecentFolders == nil {
		got.RecentFolders = []string{}
	}
	if err := s.Check(got); err != nil {
		return defaults, map[string]json.RawMessage{}, fmt.Errorf("%w: %s: %v; Baton uses its defaults and leaves the file as it is until you fix or reset it", ErrBroken, path, err)
	}
	for _, k := range Keys() {
		delete(raw, k)
	}
	return got, raw, nil
}

// describeJSONError adds the line and column to a syntax error.
func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	line, col := 1, 1
	for _, b := range data[:min(int(se.Offset), len(data))] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("%v at line %d, column %d", err, line, col)
}

// Keys are the keys of settings.json that Baton knows.
func Keys() []string {
	var keys []string
	b, _ := json.Marshal(Settings{})
	var m map[string]json.RawMessage
	_ = json.Unmarshal(b, &m)
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Path returns the settings file.
func (s *Store) Path() string { return s.path }

// Get returns the settings in force.
func (s *Store) Get() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.current
	c.RecentFolders = append([]string{}, s.current.RecentFolders...)
	return c
}

// Problem returns why settings.json could not be used, or nil.
func (s *Store) Problem() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// Save checks next and writes it. Invalid settings, or a broken file on disk
// that has not been reset, leave both the file and the settings in force as
// they were.
func (s *Store) Save(next Settings) error {
	if next.RecentFolders == nil {
		next.RecentFolders = []string{}
	}
	if err := s.Check(next); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return s.broken
	}
	if err := s.write(next, s.extra); err != nil {
		return err
	}
	s.current = next
	return nil
}

// Update applies change to a copy of the settings in force and saves it.
func (s *Store) Update(change func(*Settings)) (Settings, error) {
	next := s.Get()
	change(&next)
	if err := s.Save(next); err != nil {
		return s.Get(), err
	}
	return next, nil
}

// AddRecentFolder puts dir first in the recent folders, without duplicates.
func (s *Store) AddRecentFolder(dir string) (Settings, error) {
	return s.Update(func(st *Settings) {
		list := []string{dir}
		for _, d := range st.RecentFolders {
			if d != dir && len(list) < MaxRecentFolders {
				list = append(list, d)
			}
		}
		st.RecentFolders = list
	})
}

// Reset keeps a broken file as settings.json.broken and writes the defaults.
func (s *Store) Reset() (Settings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		if err := os.Rename(s.path, s.path+".broken"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return s.current, fmt.Errorf("keep the broken settings file: %w", err)
		}
	}
	defaults := Defaults()
	if err := s.write(defaults, map[string]json.RawMessage{}); err != nil {
		return s.current, err
	}
	s.current, s.extra, s.broken = defaults, map[string]json.RawMessage{}, nil
	return defaults, nil
}

// write stores next plus the unknown keys, atomically: a temporary file in
// the same directory, synced, then renamed over settings.json.
func (s *Store) write(next Settings, extra map[string]json.RawMessage) error {
	known, err := json.Marshal(next)
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	all := map[string]json.RawMessage{}
	if err := json.Unmarshal(known, &all); err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	for k, v := range extra {
		all[k] = v
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return fmt.Errorf("encode settings: %w", err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create the settings directory: %w", err)
	}
	if err := atomicfile.Write(s.path, data, 0o600); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	return nil
}
