package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/agent/agenttest"
	"github.com/baton-app/baton/backend/protocol"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/testsupport"
)

// writeFiles writes a project (path → text) into a new folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	return testsupport.Project(t, files)
}

// workerPrompt is a system template's worker prompt for a task.
func workerPrompt(t *testing.T, tmpl, dir, request, id, title, description, scope string) string {
	t.Helper()
	return templatePrompt(t, tmpl, template.PhaseWorkerExecution, map[string]any{
		template.VarCWD: dir, template.VarUserRequest: request, template.VarTaskID: id, template.VarTaskTitle: title,
		template.VarTaskDescription: description, template.VarTaskScope: scope})
}

func (c *fakeCLI) wrote() []string {
	var out []string
	for _, b := range c.calls {
		if b.Name == "Write" || b.Name == "Edit" {
			p, _ := b.Input["file_path"].(string)
			rel, _ := filepath.Rel(c.dir, p)
			out = append(out, b.Name+" "+filepath.ToSlash(rel))
		}
	}
	return out
}

var shop = map[string]string{
	"go.mod":    "module example.com/shop\n\ngo 1.18\n",
	"README.md": "# shop\n\nA tiny shop: a cart and its loader.\n",
	"cart/cart.go": `// Package cart adds up what a customer buys.
package cart

// Total is the sum of prices.
func Total(prices []float64) float64 {
	sum := 0.0
	for _, p := range prices {
		sum += p
	}
	return sum
}

// Cart holds the items of one customer.
type Cart struct {
	Items []string
}

// Add puts an item into the cart.
func (c *Cart) Add(item string) { c.Items = append(c.Items, item) }
`,
	"tools/load.py": "\"\"\"Loads the shop's data.\"\"\"\n\n\ndef load(path):\n    \"\"\"Reads the file at path.\"\"\"\n    return open(path).read()\n",
}

// A documentation worker writes its page from the code: the package
// comment, each exported name with its declaration, documentation and
// place, and the files; the index links the pages and names the missing
// one; a page that was there keeps its text and gains the agent's part,
// once.
func TestDocumentationFromTheCode(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, shop)
	c := newFakeCLI(t, dir)
	comp := agenttest.ValidCompletion(t, c.send(workerPrompt(t, "documentation", dir, "Document the shop",
		"task_001", "Write the cart page", "Write docs/cart.md: what cart is for, its main files and how to use them.", "cart/")), protocol.DialectOrchestrator)
	if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md" || strings.Join(c.wrote(), ",") != "Write docs/cart.md" {
		t.Fatalf("completion %+v, writes %v", comp, c.wrote())
	}
	page := readFile(t, filepath.Join(dir, "docs", "cart.md"))
	for _, want := range []string{
		"# cart\n\nPackage cart adds up what a customer buys.",
		"imported as `example.com/shop/cart`",
		"```go\nfunc Total(prices []float64) float64\n```\n\nTotal is the sum of prices.",
		"Defined in [`cart/cart.go:5`](../cart/cart.go#L5).",
		"type Cart struct {\n\tItems []string\n}",
		"- `func (c *Cart) Add(item string)`: Add puts an item into the cart. ([`cart/cart.go:19`](../cart/cart.go#L19))",
		"| [`cart/cart.go`](../cart/cart.go) | 19 | Go |",
		"for task_001",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}

	// The index: every page of docs/, and the one the task names that is
	// not there.
	c = newFakeCLI(t, dir)
	comp = agenttest.ValidCompletion(t, c.send(workerPrompt(t, "documentation", dir, "Document the shop",
		"task_003", "Write the index docs/README.md", "Write docs/README.md, the index that links every page: docs/cart.md, docs/tools.md.", "(no particular files)")), protocol.DialectOrchestrator)
	index := readFile(t, filepath.Join(dir, "docs", "README.md"))
	if comp.Status != "success" || !strings.Contains(index, "# Documentation of shop\n\nA tiny shop: a cart and its loader.") ||
		!strings.Contains(index, "| [cart](cart.md) | Package cart adds up what a customer buys. |") ||
		!strings.Contains(index, "| docs/tools.md | not written yet") || !strings.Contains(comp.Summary, "1 page the task names is missing: docs/tools.md") {
		t.Errorf("index (%+v):\n%s", comp, index)
	}

	// A page that was there: the agent's part is added at its end (an
	// Edit), and a second turn finds it done.
	usage := "# Usage\n\nRun `shop` in the folder.\n"
	if err := os.WriteFile(filepath.Join(dir, "docs", "usage.md"), []byte(usage), 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := workerPrompt(t, "documentation", dir, "Document the shop", "task_004", "Document the loader",
		"Write a usage guide for the loader in docs/usage.md.", "tools/")
	c = newFakeCLI(t, dir)
	agenttest.ValidCompletion(t, c.send(prompt), protocol.DialectOrchestrator)
	got := readFile(t, filepath.Join(dir, "docs", "usage.md"))
	if strings.Join(c.wrote(), ",") != "Edit docs/usage.md" || !strings.HasPrefix(got, usage+"\n<!-- baton:begin task_004 -->\n## tools\n") ||
		!strings.Contains(got, "#### load\n\n```python\ndef load(path)\n```\n\nReads the file at path.") || !strings.HasSuffix(got, "<!-- baton:end task_004 -->\n") {
		t.Errorf("writes %v; usage.md:\n%s", c.wrote(), got)
	}
	c = newFakeCLI(t, dir)
	comp = agenttest.ValidCompletion(t, c.send(prompt), protocol.DialectOrchestrator)
	if len(c.wrote()) != 0 || readFile(t, filepath.Join(dir, "docs", "usage.md")) != got || strings.Join(comp.OutputFiles, ",") != "docs/usage.md" {
		t.Errorf("a second turn wrote %v (files %v)", c.wrote(), comp.OutputFiles)
	}
}

var calc = map[string]string{
	"go.mod": "module example.com/calc\n\ngo 1.18\n",
	"calc/calc.go": `package calc

import (
	"os"
	"strings"
)

// Kind is a kind of number.
type Kind int

// Add adds.
func Add(a, b int) int { return a + b }

// Words splits s into words.
func Words(s string) []string { return strings.Fields(s) }

// Name names a kind; it panics on a kind it does not know.
func Name(k Kind) string {
	if k > 2 {
		panic("unknown kind")
	}
	return []string{"zero", "one", "two"}[k]
}

var counter int

// Next counts: it answers differently each time.
func Next() int { counter++; return counter }

// Twice calls Next twice.
func Twice() int { return Next() + Next() }

// Home reads the environment.
func Home() string { return os.Getenv("HOME") }

// Spawn starts a goroutine.
func Spawn(n int) int {
	go func() {}()
	return n
}

// T bumps the counter.
type T struct{}

// Bump counts too.
func (T) Bump() int { counter++; return counter }

// UsesBump calls a method that counts.
func UsesBump() int {
	var t T
	return t.Bump()
}
`,
	"calc/calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"1+2\")\n\t}\n}\n",
}

// A test-coverage worker writes a Go test file beside the package's own
// (its name taken, one named for Baton) that builds, passes go vet and go
// test, calls only the functions that touch nothing and answer the same
// each time, pins every exported signature, and runs the package's tests.
func TestGoTestsBuildAndPass(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, calc)
	c := newFakeCLI(t, dir)
	c.real = true
	comp := agenttest.ValidCompletion(t, c.send(workerPrompt(t, "test-coverage", dir, "Cover the calculator",
		"task_001", "Add tests for calc", "calc holds 1 source file and has 1 test file.", "calc/")), protocol.DialectOrchestrator)
	if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "calc/calc_baton_test.go" || !strings.Contains(comp.Summary, "`go test ./calc` passes") {
		t.Fatalf("completion = %+v", comp)
	}
	last := c.calls[len(c.calls)-1]
	if last.Name != "Bash" || last.Input["command"] != "go test ./calc" {
		t.Errorf("the last call %+v, want the package's tests", last)
	}
	test := readFile(t, filepath.Join(dir, "calc", "calc_baton_test.go"))
	for _, want := range []string{`{"Add(0, 0)"`, `{"Add(3, 3)"`, `{"Words(\"baton\")"`, `{"Name(3)"`, "_ func(k Kind) string = Name", "_ func() int = Next", "_ func(n int) int = Spawn"} {
		if !strings.Contains(test, want) {
			t.Errorf("the test lacks %s:\n%s", want, test)
		}
	}
	for _, called := range []string{`{"Next(`, `{"Twice(`, `{"Home(`, `{"Spawn(`, `{"UsesBump(`} {
		if strings.Contains(test, called) {
			t.Errorf("the test calls %s, which is not the same from call to call or touches the system:\n%s", called, test)
		}
	}
	if out, err := agenttest.Go(dir, "vet", "./..."); err != nil {
		t.Errorf("go vet: %v\n%s", err, out)
	}
	out, err := agenttest.Go(dir, "test", "-count=1", "-v", "-run", "TestBaton", "./...")
	if err != nil || !strings.Contains(out, "--- PASS: TestBatonCalcBatonCalls/Name(3)") {
		t.Errorf("go test: %v\n%s", err, out)
	}
	if readFile(t, filepath.Join(dir, "calc", "calc_test.go")) != calc["calc/calc_test.go"] {
		t.Error("the package's own test changed")
	}
	// Its own file is its own: a second turn writes nothing new.
	c = newFakeCLI(t, dir)
	c.real = true
	agenttest.ValidCompletion(t, c.send(workerPrompt(t, "test-coverage", dir, "Cover the calculator",
		"task_001", "Add tests for calc", "calc holds 1 source file and has 1 test file.", "calc/")), protocol.DialectOrchestrator)
	if len(c.wrote()) != 0 {
		t.Errorf("a second turn wrote %v", c.wrote())
	}
}

// On Python and JavaScript projects the tests are the matching test files
// of the project's runner, and they pass.
func TestScriptTestsPass(t *testing.T) {
	t.Parallel()
	for _, bin := range []string{"python3", "node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s is needed: %v", bin, err)
		}
	}
	dir := writeFiles(t, map[string]string{
		"package.json":     `{"name": "stock", "type": "module", "scripts": {"test": "node --test"}}`,
		"stock/stock.js":   "/** Counts the items. */\nexport function count(items) {\n  return items.length;\n}\n\nexport const unit = 'piece';\n",
		"cart/cart.py":     "def total(prices):\n    return sum(prices)\n\n\nclass Cart:\n    pass\n",
		"cart/__init__.py": "",
		"pyproject.toml":   "[project]\nname = \"cart\"\n",
	})
	c := newFakeCLI(t, dir)
	c.real = true
	comp := agenttest.ValidCompletion(t, c.send(workerPrompt(t, "test-coverage", dir, "Cover it",
		"task_001", "Add tests for stock", "stock holds 1 source file and has no tests.", "stock/")), protocol.DialectOrchestrator)
	if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "stock/stock.test.js" || !strings.Contains(comp.Summary, "`npm test` passes") {
		t.Errorf("completion = %+v", comp)
	}
	if js := readFile(t, filepath.Join(dir, "stock", "stock.test.js")); !strings.Contains(js, "import * as mod from './stock.js';") ||
		!strings.Contains(js, "for (const name of ['count'])") || !strings.Contains(js, "for (const name of ['unit'])") {
		t.Errorf("stock.test.js:\n%s", js)
	}
	c = newFakeCLI(t, dir)
	c.real = true
	comp = agenttest.ValidCompletion(t, c.send(workerPrompt(t, "test-coverage", dir, "Cover it",
		"task_002", "Add tests for cart", "cart holds 2 source files and has no tests.", "cart/")), protocol.DialectOrchestrator)
	if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "cart/test_cart.py,cart/test___init__.py" && strings.Join(comp.OutputFiles, ",") != "cart/test___init__.py,cart/test_cart.py" {
		t.Errorf("completion = %+v", comp)
	}
	if !strings.Contains(comp.Summary, "python3 -m unittest discover -s cart -p 'test_*.py'` passes") {
		t.Errorf("summary = %q", comp.Summary)
	}
	if py := readFile(t, filepath.Join(dir, "cart", "test_cart.py")); !strings.Contains(py, `for name in ["total", "Cart"]:`) {
		t.Errorf("test_cart.py:\n%s", py)
	}
}

// demoProject is a listing for the plans: internal/ with two packages and
// its own file, a command, a README.
func scopeMind(request string) *Mind {
	m := NewMind(Turn{Cwd: "/p/demo", Initial: "## The request\n" + request + "\n\n## Step 1: analysis\nExplore.", Prompt: "## Step 2: task planning\n" +
		"Plan one task per component, each writing its own files under docs, so that no two tasks write the same page."})
	for _, p := range []string{"README.md", "go.mod", "cmd/demo/main.go", "internal/doc.go", "internal/a/a.go", "internal/b/b.go", "internal/b/b2.go", "web/app.js"} {
		m.files = append(m.files, File{Path: p, Size: 10})
	}
	return m
}

// The plan stays within what the request names: a package by name, a
// folder by path, a file; else the whole project.
func TestPlanFollowsTheRequestScope(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ request, want string }{
		{"Document the internal package", "internal/doc.go|internal/a/|internal/b/"},
		{"Document internal/b/ and the web folder.", "internal/b/|web/"},
		{"Explain cmd/demo/main.go", "cmd/demo/main.go"},
		{"Document this project", "README.md,go.mod|cmd/|internal/|web/"},
		{"Document the nowhere package", "README.md,go.mod|cmd/|internal/|web/"},
	} {
		m := scopeMind(tt.request)
		var scopes []string
		for _, task := range plannedTasks(t, m) {
			if deps, _ := task["dependencies"].([]any); len(deps) > 0 {
				continue // the index
			}
			var s []string
			for _, x := range task["scope"].([]any) {
				s = append(s, x.(string))
			}
			scopes = append(scopes, strings.Join(s, ","))
		}
		if got := strings.Join(scopes, "|"); got != tt.want {
			t.Errorf("%q plans %s, want %s", tt.request, got, tt.want)
		}
	}
}

// Files git does not track are left out of the plan, and the analysis
// says so (a worktree run's workers would not find them).
func TestUntrackedFilesAreLeftOut(t *testing.T) {
	t.Parallel()
	m := scopeMind("Document this project")
	m.SetUntracked("web/app.js\ninternal/b/b2.go\n")
	data, _ := m.analysis()
	warnings, _ := data["warnings"].([]string)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "2 files not tracked by git (internal/b/b2.go, web/app.js) are left out of the plan") {
		t.Errorf("warnings = %q", warnings)
	}
	for _, task := range plannedTasks(t, m) {
		for _, s := range task["scope"].([]any) {
			if strings.HasPrefix(s.(string), "web") {
				t.Errorf("a task on untracked files: %v", task)
			}
		}
	}
	if !m.has("web/app.js") || len(m.components()) != 3 {
		t.Errorf("components = %+v", m.components())
	}
}

// In plan mode (and in a read-only task) the worker writes nothing and
// proposes its changes in its report.
func TestPlanModeProposes(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, shop)
	c := newFakeCLI(t, dir)
	c.planMode = true
	comp := agenttest.ValidCompletion(t, c.send(workerPrompt(t, "documentation", dir, "Document the shop",
		"task_001", "Write the cart page", "Write docs/cart.md: what cart is for.", "cart/")), protocol.DialectOrchestrator)
	if len(c.wrote()) != 0 || len(comp.OutputFiles) != 0 || comp.Status != "success" {
		t.Fatalf("plan mode: writes %v, completion %+v", c.wrote(), comp)
	}
	for _, b := range c.calls {
		if b.Name == "Bash" && strings.Contains(b.Input["command"].(string), "go test") {
			t.Errorf("plan mode ran %v", b.Input)
		}
	}
	if !strings.Contains(comp.Output, "Plan mode: I changed nothing. Proposed changes:") || !strings.Contains(comp.Output, "I would create `docs/cart.md`") ||
		!strings.HasPrefix(comp.Summary, "Proposes docs/cart.md") {
		t.Errorf("report = %q / %q", comp.Summary, comp.Output)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); err == nil {
		t.Error("docs/ was written in plan mode")
	}
}

// The lying scenarios: the report lies, and what it says can be checked
// against the folder and the project's build.
func TestLyingWorkers(t *testing.T) {
	t.Parallel()
	prompt := func(dir string) string {
		return workerPrompt(t, "documentation", dir, "Document the shop", "task_002", "Write the cart page", "Write docs/cart.md: what cart is for.", "cart/")
	}
	t.Run("wrong-task-id", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, shop)
		c := newFakeCLI(t, dir)
		c.scenario, c.params = "wrong-task-id", map[string]string{"times": "1"}
		c.session = "local___orch_r1_worker_task_002"
		comp := agenttest.ValidCompletion(t, c.send(prompt(dir)), protocol.DialectOrchestrator)
		if comp.TaskID != "task_001" || comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md" {
			t.Errorf("first report = %+v, want task_002's work under task_001's id", comp)
		}
		comp = agenttest.ValidCompletion(t, c.send(`Your report named task_001. Report task_002 again: {"phase": "completion", "data": {"task_id": "task_002"}}`), protocol.DialectOrchestrator)
		if comp.TaskID != "task_002" {
			t.Errorf("second report (times=1) = %+v", comp)
		}
		if got := otherID("DOCS-001"); got != "DOCS-002" {
			t.Errorf("otherID(DOCS-001) = %s", got)
		}
	})
	t.Run("claims-without-writing", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, shop)
		c := newFakeCLI(t, dir)
		c.scenario = "claims-without-writing"
		comp := agenttest.ValidCompletion(t, c.send(prompt(dir)), protocol.DialectOrchestrator)
		if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md" || !strings.HasPrefix(comp.Summary, "Wrote docs/cart.md") {
			t.Errorf("report = %+v", comp)
		}
		if _, err := os.Stat(filepath.Join(dir, "docs", "cart.md")); !os.IsNotExist(err) || len(c.wrote()) != 0 {
			t.Errorf("the file it claims: %v; writes %v", err, c.wrote())
		}
	})
	t.Run("verification-lies", func(t *testing.T) {
		t.Parallel()
		dir := writeFiles(t, shop)
		if out, err := agenttest.Go(dir, "build", "./..."); err != nil {
			t.Fatalf("the project does not build before: %v\n%s", err, out)
		}
		c := newFakeCLI(t, dir)
		c.real, c.scenario = true, "verification-lies"
		comp := agenttest.ValidCompletion(t, c.send(prompt(dir)), protocol.DialectOrchestrator)
		if comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md,cart/baton_broken.go" {
			t.Errorf("worker's report = %+v", comp)
		}
		out, err := agenttest.Go(dir, "build", "./...")
		if err == nil || !strings.Contains(out, "batonUndefinedTask002") {
			t.Fatalf("go build after the worker: %v\n%s", err, out)
		}
		res := agenttest.Parse(t, c.send(`Verify the work. Answer {"phase": "verification"}`), protocol.PhaseVerification)
		v, ok := res.Last(protocol.PhaseVerification)
		if !ok {
			t.Fatalf("no verification: %+v", res.Failure)
		}
		vd := v.Data.(*protocol.Verification)
		ran := c.calls[len(c.calls)-1]
		if vd.Status != "pass" || !strings.Contains(vd.Summary, "The build and the tests pass.") || ran.Input["command"] != "go test ./..." {
			t.Errorf("verification = %+v after running %v", vd, ran.Input)
		}
	})
}

// A conversation that goes on after a resume does not write again what
// it wrote before, even when the file changed since.
func TestResumedConversationDoesNotWriteAgain(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, shop)
	c := newFakeCLI(t, dir)
	prompt := workerPrompt(t, "documentation", dir, "Document the shop", "task_001", "Write the cart page", "Write docs/cart.md: what cart is for.", "cart/")
	agenttest.ValidCompletion(t, c.send(prompt), protocol.DialectOrchestrator)
	if strings.Join(c.wrote(), ",") != "Write docs/cart.md" {
		t.Fatalf("writes %v", c.wrote())
	}
	// Someone touched the page since; the conversation still holds the
	// Write that succeeded.
	if err := os.WriteFile(filepath.Join(dir, "docs", "cart.md"), []byte("# cart\n\nEdited by hand.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.calls = nil
	comp := agenttest.ValidCompletion(t, c.send(`You were interrupted. Report task_001: {"phase": "completion", "data": {"task_id": "task_001"}}`), protocol.DialectOrchestrator)
	if len(c.wrote()) != 0 || comp.Status != "success" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md" {
		t.Errorf("after the resume: writes %v, report %+v", c.wrote(), comp)
	}
}

// A worker reports its own task's id, whatever id a later message names
// first (a re-prompt quoting another task's or an example's), in a
// session whose id says nothing (the CLI's).
func TestReportKeepsItsOwnTaskID(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, shop)
	c := newFakeCLI(t, dir)
	agenttest.ValidCompletion(t, c.send(workerPrompt(t, "documentation", dir, "Document the shop", "task_002", "Write the cart page",
		"Write docs/cart.md: what cart is for.", "cart/")), protocol.DialectOrchestrator)
	comp := agenttest.ValidCompletion(t, c.send(`Your report was not read. Answer like {"phase": "completion", "data": {"task_id": "task_001"}} with your task's id.`),
		protocol.DialectOrchestrator)
	if comp.TaskID != "task_002" || strings.Join(comp.OutputFiles, ",") != "docs/cart.md" {
		t.Errorf("the report after a re-prompt naming task_001 = %+v", comp)
	}
}
