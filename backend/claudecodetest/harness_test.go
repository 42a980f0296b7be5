package claudecodetest_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claudecodetest"
	"github.com/baton-app/baton/backend/modelsim"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// startModelSim starts baton model-sim on a loopback port for the test.
func startModelSim(t *testing.T) *modelsim.Server {
	t.Helper()
	srv, err := modelsim.New(modelsim.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return srv
}

// fixture copies testdata/project into a new folder and returns its path.
func fixture(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "project")
	src := filepath.Join("testdata", "project")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var (
	mgrOnce sync.Once
	mgr     *template.Manager
	mgrErr  error
)

// systemTemplate returns a system template, resolved.
func systemTemplate(t *testing.T, id string) template.Template {
	t.Helper()
	mgrOnce.Do(func() {
		dir, err := os.MkdirTemp("", "baton-templates-")
		if err != nil {
			mgrErr = err
			return
		}
		mgr, mgrErr = template.New(dir, template.Options{Logger: quiet})
	})
	if mgrErr != nil {
		t.Fatal(mgrErr)
	}
	tmpl, err := mgr.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// systemTemplateIDs are the ids of the system templates (templates/*.json).
func systemTemplateIDs(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(claudecodetest.Root(), "templates", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range matches {
		id := strings.TrimSuffix(filepath.Base(m), ".json")
		if id != "schema" {
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 {
		t.Fatalf("found only %v under templates/", ids)
	}
	return ids
}

const request = "Document the key-value store: a usage guide for the command and doc comments for the store package."

// task is the worker task the recordings and template tests give a worker.
var task = protocol.Task{
	ID:                 "task_001",
	Title:              "Document the store package",
	Description:        "Write doc comments for every exported name of store/store.go and a usage guide in docs/usage.md.",
	Scope:              []string{"store/store.go", "docs/usage.md"},
	Priority:           ptr(5),
	Complexity:         "medium",
	Mode:               "documenter",
	ExpectedOutputs:    []string{"docs/usage.md"},
	AcceptanceCriteria: []string{"go build ./... and go test ./... pass"},
}

func ptr[T any](v T) *T { return &v }

// promptValues are the values Baton gives a phase's prompt, built the way
// the engine builds them (runner.go: the run's values, taskValues,
// newTaskJSON for the delegation dialect, phaseValues for aggregation).
func promptValues(tmpl template.Template, phase template.Phase, cwd string) map[string]any {
	v := map[string]any{template.VarUserRequest: request, template.VarCWD: cwd}
	switch phase {
	case template.PhaseWorkerExecution, template.PhaseReview:
		tj, _ := json.Marshal(protocol.Task{ID: task.ID, Title: task.Title, Description: task.Description, Scope: task.Scope,
			Priority: task.Priority, Complexity: task.Complexity})
		if tmpl.Prompts.ResponseFormat.Dialect == "delegation" {
			tj, _ = json.Marshal(map[string]any{
				"taskId": task.ID, "delegatedToMode": task.Mode, "objective": task.Description,
				"inputs":              []protocol.Artifact{{Path: "store/store.go"}},
				"expectedOutputs":     []protocol.Artifact{{Path: "docs/usage.md"}},
				"constraintsAndRules": []string{"change only the files of the scope"},
				"acceptanceCriteria":  task.AcceptanceCriteria, "priority": "high", "dependencies": []string{},
			})
		}
		v[template.VarTaskID] = task.ID
		v[template.VarTaskTitle] = task.Title
		v[template.VarTaskDescription] = task.Description
		v[template.VarTaskScope] = strings.Join(task.Scope, ", ")
		v[template.VarTaskJSON] = string(tj)
		v[template.VarCompletionReport] = `{"phase": "completion", "data": {"task_id": "task_001", "status": "success", "summary": "Documented the store.", "output_files": ["docs/usage.md"]}}`
	case template.PhaseAggregation:
		v[template.VarWorkerOutputs] = "### task_001 - Document the store package (completed)\nSummary: Documented every exported name of the store.\nFiles: store/store.go, docs/usage.md\n\n" +
			"### task_002 - Document the command (completed)\nSummary: Wrote the command's usage.\nFiles: cmd/kv/main.go\n\n"
	}
	return v
}

// prompt renders a phase's prompt: the system part (for
// --append-system-prompt) and the message.
func prompt(t *testing.T, tmpl template.Template, phase template.Phase, cwd string) (system, user string) {
	t.Helper()
	p, err := tmpl.Render(phase, promptValues(tmpl, phase, cwd))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(p.User) == "" {
		t.Fatalf("template %s has no %s prompt", tmpl.ID, phase)
	}
	return p.System, p.User
}

// sessionUUID is a fixed session id per name, so a run's transcript file
// name is known before it starts.
func sessionUUID(name string) string {
	h := sha256.Sum256([]byte("baton-recording:" + name))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// entries decodes stream-json events or transcript lines with the protocol
// reader; every line must be readable.
func entries(t *testing.T, data []byte) []protocol.Entry {
	t.Helper()
	es, skipped, err := protocol.DecodeTranscript(data)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if skipped != 0 {
		t.Errorf("%d lines were not entries", skipped)
	}
	return es
}
