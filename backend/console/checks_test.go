package console

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // to hold the database's lock as another program would

	"github.com/baton-app/baton/backend/store"
)

// deadEndpoint is a CDP endpoint where nothing answers.
func deadEndpoint(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// The cheap checks come before the host is contacted: with nothing at the
// endpoint, a bad permission mode, bad variables (every problem listed at
// once, an unknown one too, exit 2 as every usage error), an unknown
// template and a locked database are each reported as what they are, not
// as a host that does not answer.
func TestRunChecksBeforeTheHost(t *testing.T) {
	dead := deadEndpoint(t)
	base := []string{"--cdp", dead, "--cwd", sample(t), "--message", "Document the store", "--yes"}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"permission mode", []string{"--template", "documentation", "--permission-mode", "yolo"}, ExitUsage,
			[]string{`the permission mode (permissionMode) must be one of default, acceptEdits`, `not "yolo"`}},
		{"variables", []string{"--template", "documentation", "--var", "nope=1", "--var", "AUDIENCE=aliens", "--var", "OUTPUT_DIR="}, ExitUsage,
			[]string{"the run cannot start (3 problems):", "  - the template has no variable nope", `  - Audience (AUDIENCE): "aliens" is not one of`, "(OUTPUT_DIR) is required", "--var AUDIENCE=…"}},
		{"unknown variable", []string{"--template", "documentation", "--var", "nope=1"}, ExitUsage,
			[]string{"the run cannot start (1 problem):", "  - the template has no variable nope"}},
		{"template", []string{"--template", "nope"}, ExitError, []string{`"nope"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("BATON_CONFIG_DIR", t.TempDir())
			code, stdout, stderr := run(t, "", append(append([]string{}, base...), tt.args...)...)
			if code != tt.code || strings.Contains(stderr, "answer") || strings.Contains(stderr, dead) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}

	t.Run("locked database", func(t *testing.T) {
		config := t.TempDir()
		t.Setenv("BATON_CONFIG_DIR", config)
		path := filepath.Join(config, "baton.db")
		st, err := store.Open(path, store.WithLogger(slog.New(slog.DiscardHandler))) // made and migrated, as Baton leaves it
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		db, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tx, err := db.BeginTx(context.Background(), nil) // another program writes
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		start := time.Now()
		code, stdout, stderr := run(t, "", append(append([]string{}, base...), "--template", "documentation")...)
		if code != ExitError || !strings.Contains(stderr, "the history database is locked by another program") || strings.Contains(stderr, dead) {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if took := time.Since(start); took > 15*time.Second {
			t.Errorf("the locked database was reported after %s", took)
		}
	})
}
