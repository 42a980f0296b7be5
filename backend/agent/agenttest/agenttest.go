// Package agenttest holds what the tests of the scripted agent's faces
// share (backend/agent, backend/simulator): a small project folder,
// Baton's own sparc prompts rendered from the system templates, and
// Baton's parser reading the agent's answers as the engine does. Only
// tests import it.
package agenttest

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
)

// Project writes a small Go project into a temporary folder and returns
// the folder: README.md, go.mod, api/server.go, api/handlers.go and
// store/db.go (5 files in 3 parts: the top level, api and store).
func Project(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"README.md":       "# Demo\n",
		"go.mod":          "module demo\n",
		"api/server.go":   "package api\n",
		"api/handlers.go": "package api\n",
		"store/db.go":     "package store\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// SparcPrompts renders the sparc template's planning prompt and the
// worker prompt of task CODE-002 (scope api/) for the project in dir as
// the engine sends them: system text, a blank line, then the user text.
func SparcPrompts(t testing.TB, dir string) (planning, worker string) {
	t.Helper()
	mgr, err := template.New(t.TempDir(), template.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := mgr.Get("sparc")
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{
		template.VarCWD: dir, template.VarUserRequest: "Document this project",
		template.VarTaskID: "CODE-002", template.VarTaskTitle: "Work on api.", template.VarTaskDescription: "Work on api.",
		template.VarTaskScope: "api/",
		template.VarTaskJSON: `{"taskId":"CODE-002","delegatedToMode":"code","objective":"Work on api.",` +
			`"inputs":[{"type":"code","path":"api/"}],"acceptanceCriteria":["api/ was read"]}`,
	}
	render := func(phase template.Phase) string {
		p, err := tmpl.Render(phase, values)
		if err != nil {
			t.Fatal(err)
		}
		return p.System + "\n\n" + p.User
	}
	return render(template.PhaseTaskPlanning), render(template.PhaseWorkerExecution)
}

// Parser is Baton's parser with the default delimiters, which the agent
// writes.
func Parser(t testing.TB) *protocol.Parser {
	t.Helper()
	p, err := protocol.NewParser(protocol.Delimiters{Start: protocol.DefaultStart, End: protocol.DefaultEnd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Parse reads an answer with Baton's own parser, as the engine does.
func Parse(t testing.TB, text string, phase protocol.Phase) protocol.Result {
	t.Helper()
	return Parser(t).ParseText(text, protocol.Options{Phase: phase})
}

// ValidCompletion returns the valid completion of text in dialect d, and
// fails the test when it has none.
func ValidCompletion(t testing.TB, text string, d protocol.Dialect) *protocol.Completion {
	t.Helper()
	res := Parse(t, text, protocol.PhaseCompletion)
	resp, ok := res.Last(protocol.PhaseCompletion)
	if !ok || resp.Dialect != d {
		t.Fatalf("no valid %s completion (failure %+v) in:\n%s", d, res.Failure, text)
	}
	return resp.Data.(*protocol.Completion)
}
