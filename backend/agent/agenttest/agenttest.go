// Package agenttest holds what the tests of the scripted agent's faces
// share (backend/agent, backend/simulator): a small project folder,
// Baton's own sparc prompts rendered from the system templates, and
// Baton's parser reading the agent's answers as the engine does. Only
// tests import it.
package agenttest

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// Project writes a small Go project into a temporary folder and returns
// the folder: README.md, go.mod, api/server.go, api/handlers.go and
// store/db.go (5 files in 3 parts: the top level, api and store).
func Project(t testing.TB) string {
	t.Helper()
	return testsupport.Project(t, map[string]string{
		"README.md":       "# Demo\n",
		"go.mod":          "module demo\n",
		"api/server.go":   "package api\n",
		"api/handlers.go": "package api\n",
		"store/db.go":     "package store\n",
	})
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

// ThirdPartyModule is the Go module the end-to-end tests of the stand-ins
// work on: a real third-party module of Baton's go.sum, with several
// packages, tests that pass offline and one package without tests.
const ThirdPartyModule = "github.com/sergeymakinen/go-ico"

// GoModule copies ThirdPartyModule from the module cache (at the version
// Baton's go.sum names) into a new git repository with one commit, and
// returns the folder. It fails the test when the module is not in the
// cache (go mod download fetches it) or its own go vet and go test do not
// pass offline.
func GoModule(t testing.TB) string {
	t.Helper()
	src, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", ThirdPartyModule).Output()
	dir := strings.TrimSpace(string(src))
	if err != nil || dir == "" {
		t.Fatalf("%s is not in the module cache (%v): run go mod download %s", ThirdPartyModule, err, ThirdPartyModule)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(ThirdPartyModule))
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "the module as published"}} {
		testsupport.Git(t, dst, args...)
	}
	for _, check := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		if out, err := Go(dst, check...); err != nil {
			t.Fatalf("go %s fails in %s before any worker: %v\n%s", strings.Join(check, " "), ThirdPartyModule, err, out)
		}
	}
	return dst
}

// Go runs the go command in dir offline (the module cache only) and
// returns its output.
func Go(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// CheckPages checks, after a documentation run on GoModule's folder dir
// with tasks tasks, what git status shows: a new page of docs/ per task
// and nothing else; each page the agent's; the index docs/README.md
// linking the others; the root package's Decode documented from its code.
func CheckPages(t testing.TB, dir string, tasks int) {
	t.Helper()
	status := testsupport.Git(t, dir, "status", "--porcelain", "--untracked-files=all")
	var pages []string
	for line := range strings.SplitSeq(strings.TrimSpace(status), "\n") {
		if !strings.HasPrefix(line, "?? docs/") {
			t.Errorf("git status: %q is not a new page", line)
			continue
		}
		pages = append(pages, strings.TrimPrefix(line, "?? "))
	}
	if len(pages) != tasks {
		t.Errorf("%d new pages for %d tasks: %v", len(pages), tasks, pages)
	}
	index := ""
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if text := string(b); !strings.HasPrefix(text, "# ") || !strings.Contains(text, "Baton's scripted agent (no AI)") {
			t.Errorf("%s is not a page of the agent's:\n%s", p, text)
		}
		if p == "docs/README.md" {
			index = string(b)
		}
	}
	if index == "" {
		t.Fatalf("no index docs/README.md among %v", pages)
	}
	for _, p := range pages {
		if p != "docs/README.md" && !strings.Contains(index, "]("+strings.TrimPrefix(p, "docs/")+")") {
			t.Errorf("the index does not link %s:\n%s", p, index)
		}
	}
	overview, _ := os.ReadFile(filepath.Join(dir, "docs", "overview.md"))
	if !strings.Contains(string(overview), "func Decode(r io.Reader) (image.Image, error)") || !strings.Contains(string(overview), "Defined in [`reader.go:") {
		t.Errorf("docs/overview.md does not document Decode from the code:\n%s", overview)
	}
}

// CheckTests checks, after a test-coverage run on GoModule's folder dir
// applied to its branch (base: the commit before), what git diff shows: a
// test file per task, each the agent's, and nothing left uncommitted.
func CheckTests(t testing.TB, dir, base string, tasks int) {
	t.Helper()
	files := strings.Fields(testsupport.Git(t, dir, "diff", "--name-only", base, "HEAD"))
	if len(files) != tasks {
		t.Errorf("%d files added for %d tasks: %v", len(files), tasks, files)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !strings.HasSuffix(f, "_test.go") || !strings.Contains(string(b), "func TestBaton") {
			t.Errorf("%s is not a test of the agent's (%v):\n%s", f, err, b)
		}
	}
	if status := testsupport.Git(t, dir, "status", "--porcelain"); status != "" {
		t.Errorf("git status after Apply:\n%s", status)
	}
}

// CheckGo runs go vet and go test of the module in dir: they must pass.
func CheckGo(t testing.TB, dir string) {
	t.Helper()
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./..."}} {
		if out, err := Go(dir, args...); err != nil {
			t.Errorf("go %s after the run: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
