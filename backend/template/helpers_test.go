package template

import (
	"bytes"
	"flag"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/baton-app/baton/backend/testsupport"
)

var update = flag.Bool("update", false, "rewrite the golden files and expected errors in testdata")

// recorder is a Notifier that records the events it receives.
type recorder struct {
	mu     sync.Mutex
	events []event
}

type event struct {
	name    string
	payload any
}

func (r *recorder) notify(name string, payload any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{name, payload})
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		out = append(out, e.name)
	}
	return out
}

// newManager returns a Manager over a fresh directory; with store, the
// templates of testdata/store are copied into it first.
func newManager(t *testing.T, store bool) (*Manager, *recorder) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "templates")
	if store {
		testsupport.CopyDir(t, "testdata/store", dir)
	}
	rec := &recorder{}
	m, err := New(dir, Options{Notify: rec.notify, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m, rec
}

// snapshot returns every file under dir with its mode and content, so a test
// can prove that a failed operation changed nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if os.IsNotExist(err) && p == dir {
			return fs.SkipAll
		}
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().String() + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	var keys []string
	for k := range before {
		keys = append(keys, k)
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if before[k] != after[k] {
			t.Errorf("file %s changed:\nbefore: %.200q\nafter:  %.200q", k, before[k], after[k])
		}
	}
}

// golden compares got with the file, or rewrites the file under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update to create it): %v", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Errorf("%s differs from the result at line %d (run go test -update if the change is intended):\n got: %.300s\nwant: %.300s", path, i+1, gl, wl)
			return
		}
	}
}
