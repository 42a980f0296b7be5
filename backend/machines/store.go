package machines

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/baton-app/baton/backend/atomicfile"
)

// FileName is the file that keeps the machines, beside settings.json.
const FileName = "machines.json"

// PathBeside is the machines file in the folder of settingsPath.
func PathBeside(settingsPath string) string {
	return filepath.Join(filepath.Dir(settingsPath), FileName)
}

// ErrNotFound is returned for a machine name the store does not have.
var ErrNotFound = errors.New("no such machine")

// ErrExists is returned by Add for a name the store has already.
var ErrExists = errors.New("a machine of that name exists")

// file is the JSON of machines.json.
type file struct {
	Machines []Target `json:"machines"`
}

// Store keeps the targets in one human-editable JSON file, written
// atomically with mode 0600. A file that cannot be read or holds an invalid
// target is reported by OpenStore and never overwritten. It is safe for
// concurrent use.
type Store struct {
	path string

	mu      sync.Mutex
	targets []Target
}

// OpenStore reads the machines file at path; a missing file is an empty list.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s could not be read: %w", path, err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s is not a valid machines file (%v): fix it or move it away; Baton leaves it as it is", path, err)
	}
	seen := map[string]bool{}
	for _, t := range f.Machines {
		t = t.Normalized()
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w; fix the file or remove the machine, Baton leaves it as it is", path, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s names the machine %s twice: remove one, Baton leaves the file as it is", path, t.Name)
		}
		seen[t.Name] = true
		s.targets = append(s.targets, t)
	}
	return s, nil
}

// Path is the machines file.
func (s *Store) Path() string { return s.path }

// List returns the targets by name.
func (s *Store) List() []Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Target, 0, len(s.targets))
	for _, t := range s.targets {
		t.Env = slices.Clone(t.Env)
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Get returns the target called name.
func (s *Store) Get(name string) (Target, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.index(name)
	if i < 0 {
		return Target{}, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	t := s.targets[i]
	t.Env = slices.Clone(t.Env)
	return t, nil
}

// Add checks t and stores it under a new name.
func (s *Store) Add(t Target) (Target, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return Target{}, err
	}
	return t, s.change(func(targets []Target) ([]Target, error) {
		if s.index(t.Name) >= 0 {
			return nil, fmt.Errorf("%w: %s (remove it first, or choose another name)", ErrExists, t.Name)
		}
		return append(targets, t), nil
	})
}

// Update checks t and replaces the target of the same name.
func (s *Store) Update(t Target) (Target, error) {
	t = t.Normalized()
	if err := t.Validate(); err != nil {
		return Target{}, err
	}
	return t, s.change(func(targets []Target) ([]Target, error) {
		i := s.index(t.Name)
		if i < 0 {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, t.Name)
		}
		targets[i] = t
		return targets, nil
	})
}

// Remove deletes the target called name.
func (s *Store) Remove(name string) error {
	return s.change(func(targets []Target) ([]Target, error) {
		i := s.index(name)
		if i < 0 {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
		}
		return slices.Delete(targets, i, i+1), nil
	})
}

// change applies f to a copy of the targets and writes the result; on an
// error the file and the targets stay as they were.
func (s *Store) change(f func([]Target) ([]Target, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next, err := f(slices.Clone(s.targets))
	if err != nil {
		return err
	}
	if err := s.write(next); err != nil {
		return err
	}
	s.targets = next
	return nil
}

func (s *Store) index(name string) int {
	return slices.IndexFunc(s.targets, func(t Target) bool { return t.Name == name })
}

func (s *Store) write(targets []Target) error {
	if targets == nil {
		targets = []Target{}
	}
	data, err := json.MarshalIndent(file{Machines: targets}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the machines: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create the folder of %s: %w", s.path, err)
	}
	if err := atomicfile.Write(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save the machines: %w", err)
	}
	return nil
}
