package agent

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The demo's plan follows the template as well as the request: the
// planning prompt says what kind of work it is (the documentation template
// plans one page per component and an index, test-coverage one test task
// per package that has no tests, bug-hunt one hunt per area, code-review
// one review per area), and each worker reads the files of its own scope.

// Kinds of work a planning prompt asks for.
const (
	workDocs     = "docs"
	workTests    = "tests"
	workBugs     = "bugs"
	workReview   = "review"
	workGeneric  = ""
	pageFallback = "docs"
)

var (
	writesTests      = regexp.MustCompile(`you write (?:unit|integration|both|\w+) tests`)
	taskTitle        = regexp.MustCompile(`## Your task: \S+ - ([^\n]+)`)
	outputDirPattern = regexp.MustCompile(`writing its own files under (\S+?),`)
	scopeLine        = regexp.MustCompile(`(?m)^Scope: (.+)$`)
	inputPath        = regexp.MustCompile(`"inputs"\s*:\s*\[([^\]]*)\]`)
	quotedPath       = regexp.MustCompile(`"path"\s*:\s*"([^"]+)"`)
)

// work is the kind of work the session's prompts ask for: the template's
// words first, then the request's.
func (m *Mind) work() string {
	text := strings.ToLower(m.system + "\n" + m.initial + "\n" + m.prompt)
	switch {
	case strings.Contains(text, "writing its own files under") || strings.Contains(text, "as the index linking every page") ||
		strings.Contains(text, "you write documentation for"):
		return workDocs
	case strings.Contains(text, "package or module that needs tests") || strings.Contains(text, "coverage it should reach") ||
		writesTests.MatchString(text):
		return workTests
	case strings.Contains(text, "hunts in one area") || strings.Contains(text, "bug classes") || strings.Contains(text, "you hunt bugs in your scope"):
		return workBugs
	case strings.Contains(text, "reviews one area of the code") || strings.Contains(text, "you are a code reviewer"):
		return workReview
	}
	// Else the task's title, in the words of the agent's own plans.
	if t := taskTitle.FindStringSubmatch(m.initial); t != nil {
		switch title := t[1]; {
		case strings.HasPrefix(title, "Write the ") && strings.HasSuffix(title, " page") || strings.HasPrefix(title, "Write the index "):
			return workDocs
		case strings.HasPrefix(title, "Add tests for "):
			return workTests
		case strings.HasPrefix(title, "Hunt bugs in "):
			return workBugs
		case strings.HasPrefix(title, "Review "):
			return workReview
		}
	}
	// Else the request, when the prompts quote it.
	req := ""
	for _, p := range []string{m.initial, m.prompt} {
		if r := requestPattern.FindStringSubmatch(p); r != nil {
			req = strings.ToLower(r[1])
			break
		}
	}
	switch {
	case strings.Contains(req, "test"), strings.Contains(req, "cover"):
		return workTests
	case strings.Contains(req, "bug"):
		return workBugs
	case strings.Contains(req, "review"):
		return workReview
	case strings.Contains(req, "doc"):
		return workDocs
	}
	return workGeneric
}

// outputDir is where the documentation template writes its pages.
func (m *Mind) outputDir() string {
	if p := outputDirPattern.FindStringSubmatch(m.initial + "\n" + m.prompt); p != nil {
		return strings.TrimSuffix(strings.Trim(p[1], "`\"'"), "/")
	}
	return pageFallback
}

// pkg is a folder of source files and whether it has tests.
type pkg struct {
	dir          string
	files, tests int
}

var sourceExt = []string{".go", ".py", ".ts", ".js", ".rs", ".java", ".rb", ".svelte", ".tsx", ".jsx"}

func isTest(name string) bool {
	base := path.Base(name)
	return strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "test_") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(base, "_test.py")
}

// packages lists the folders that hold source files, those without tests
// first, then by name.
func (m *Mind) packages() []pkg {
	byDir := map[string]*pkg{}
	_, files := m.planScope()
	for _, f := range files {
		if !slices.Contains(sourceExt, path.Ext(f.Path)) || ignoredDir(path.Dir(f.Path)) {
			continue
		}
		dir := path.Dir(f.Path)
		p := byDir[dir]
		if p == nil {
			p = &pkg{dir: dir}
			byDir[dir] = p
		}
		if isTest(f.Path) {
			p.tests++
		} else {
			p.files++
		}
	}
	var out []pkg
	for _, p := range byDir {
		if p.files > 0 {
			out = append(out, *p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i].tests == 0) != (out[j].tests == 0) {
			return out[i].tests == 0
		}
		return out[i].dir < out[j].dir
	})
	return out
}

// ignoredDir reports whether the build tools leave a folder out: test
// data, and folders whose name starts with _ or a dot.
func ignoredDir(dir string) bool {
	for _, d := range strings.Split(dir, "/") {
		if d == "testdata" || strings.HasPrefix(d, "_") || strings.HasPrefix(d, ".") && d != "." {
			return true
		}
	}
	return false
}

// testOutputs are the test files a test task of dir will write (see
// testTarget; the planner knows only the listing).
func (m *Mind) testOutputs(dir string) []string {
	var out []string
	for _, src := range m.testSubjects(dir) {
		plain, baton := testNames(src, strings.HasSuffix(src, ".go"))
		if m.has(plain) {
			plain = baton
		}
		out = append(out, plain)
	}
	return out
}

// plannedTask is one task of the demo's plan, in either dialect.
type plannedTask struct {
	title, description string
	scope, outputs     []string
	criteria           []string
	final              bool  // depends on every other task
	after              []int // the tasks it depends on, by index
}

// plan is the demo's plan for the work the prompts ask for.
func (m *Mind) plan() []plannedTask {
	comps := m.components()
	var out []plannedTask
	if m.scenario == "deadlock" && len(comps) > 0 {
		// A chain beside an independent task: the first task fails (see
		// workerReport), its dependant is skipped, and a retry of the
		// dependant meets the engine's deadlock check.
		first, other := componentName(comps[0].name, m.cwd), componentName(comps[len(comps)-1].name, m.cwd)
		return []plannedTask{
			{title: "Prepare " + first, description: "Prepare " + first + " for the next task.", scope: scopeList(comps[0])},
			{title: "Build on " + first, description: "Build on what the first task prepared in " + first + ".",
				scope: scopeList(comps[0]), after: []int{0}},
			{title: m.verb() + " " + other, description: fmt.Sprintf("%s %s, independently of the other tasks.", m.verb(), other),
				scope: scopeList(comps[len(comps)-1])},
		}
	}
	switch m.work() {
	case workDocs:
		dir := m.outputDir()
		var pages []string
		// The documentation's own folder is no component to document.
		comps = slices.DeleteFunc(comps, func(c component) bool { return c.name == dir || strings.HasPrefix(c.name, dir+"/") })
		for _, c := range comps {
			name := componentName(c.name, m.cwd)
			page := dir + "/" + pageName(c.name, m.cwd) + ".md"
			pages = append(pages, page)
			out = append(out, plannedTask{title: "Write the " + name + " page",
				description: fmt.Sprintf("Write %s: what %s is for, its main files and how to use them (%s), with an example.", page, name, count(len(c.files), "file")),
				scope:       scopeList(c), outputs: []string{page},
				criteria: []string{page + " exists and covers every file of " + name}})
		}
		if len(comps) > 0 {
			out = append(out, plannedTask{title: "Write the index " + dir + "/README.md",
				description: "Write " + dir + "/README.md, the index that links every page: " + strings.Join(pages, ", ") + ".",
				outputs:     []string{dir + "/README.md"}, criteria: []string{"every page is linked from the index"}, final: true})
		}
		return out
	case workTests:
		pkgs := m.packages()
		var untested []pkg
		for _, p := range pkgs {
			if p.tests == 0 {
				untested = append(untested, p)
			}
		}
		if len(untested) == 0 {
			untested = pkgs
		}
		for _, p := range untested[:min(8, len(untested))] {
			what := "has no tests"
			if p.tests > 0 {
				what = fmt.Sprintf("has %s", count(p.tests, "test file"))
			}
			scope := []string{p.dir + "/"}
			if p.dir == "." {
				scope = m.sourcesIn(".")
			}
			outputs := m.testOutputs(p.dir)
			out = append(out, plannedTask{title: "Add tests for " + p.dir,
				description: fmt.Sprintf("%s holds %s and %s: write tests for its exported behaviour, table-driven where it fits, in %s.", p.dir, count(p.files, "source file"), what, strings.Join(outputs, ", ")),
				scope:       scope, outputs: outputs,
				criteria: []string{"the tests of " + p.dir + " pass", "the coverage of " + p.dir + " reaches 70%"}})
		}
		if len(out) > 0 {
			return out
		}
	case workBugs:
		for _, c := range comps {
			name := componentName(c.name, m.cwd)
			out = append(out, plannedTask{title: "Hunt bugs in " + name,
				description: fmt.Sprintf("Look for bugs in %s (%s): ignored errors, unchecked input, leftover TODO and FIXME markers, panics. Report each finding with its file and line.", name, count(len(c.files), "file")),
				scope:       scopeList(c), criteria: []string{"every file of " + name + " was read", "each finding names its file and line"}})
		}
		return out
	case workReview:
		for _, c := range comps {
			name := componentName(c.name, m.cwd)
			out = append(out, plannedTask{title: "Review " + name,
				description: fmt.Sprintf("Review %s (%s) and report what should change, file by file.", name, count(len(c.files), "file")),
				scope:       scopeList(c), criteria: []string{"every file of " + name + " was read"}})
		}
		return out
	}
	for _, c := range comps {
		name := componentName(c.name, m.cwd)
		out = append(out, plannedTask{title: m.verb() + " " + name,
			description: fmt.Sprintf("%s %s (%s).", m.verb(), name, count(len(c.files), "file")),
			scope:       scopeList(c)})
	}
	if len(comps) > 1 {
		out = append(out, plannedTask{title: "Integrate the results", description: "Bring the parts together and check they agree.",
			final: true})
	}
	return out
}

// pageName is a component's page name.
func pageName(name, cwd string) string {
	if name == "." || name == "" {
		return "overview"
	}
	name = strings.Trim(name, "/")
	if ext := path.Ext(name); ext != "" && !strings.Contains(ext, "/") {
		name = strings.TrimSuffix(name, ext)
	}
	return strings.ReplaceAll(name, "/", "-")
}

// taskScope is the scope the worker's prompt gives its task: the "Scope:"
// line of Baton's worker prompt, or the inputs of its new_task.
func (m *Mind) taskScope() []string {
	var out []string
	text := m.initial
	if l := scopeLine.FindStringSubmatch(text); l != nil && !strings.HasPrefix(l[1], "(") {
		for _, p := range strings.Split(l[1], ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		if in := inputPath.FindStringSubmatch(text); in != nil {
			for _, p := range quotedPath.FindAllStringSubmatch(in[1], -1) {
				out = append(out, p[1])
			}
		}
	}
	return out
}

// inScope lists the files of the folder listing that a scope names: the
// files themselves, and every file under a folder.
func (m *Mind) inScope(scope []string) []string {
	var out []string
	for _, f := range m.files {
		for _, s := range scope {
			dir := strings.TrimSuffix(s, "/")
			if f.Path == s || strings.HasPrefix(f.Path, dir+"/") {
				out = append(out, f.Path)
				break
			}
		}
	}
	return out
}
