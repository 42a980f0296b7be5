package agent

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A worker's turn, shared by both faces: what it reads (WorkerReads), what
// it makes of it (Work: the files it writes, from the code it read, and
// what it reports), and its report once the face wrote them (Report).
// The faces do the reading and writing, each through its own tools.

// Change is a file a worker writes.
type Change struct {
	Path    string // relative to the working directory
	Content string // the file's whole text after the change
	// Existed is set when the file was there: Old is the text the worker
	// read. A change whose Content is Old is already done.
	Existed bool
	Old     string
}

// Done reports whether the file already holds what the change writes.
func (c Change) Done() bool { return c.Existed && c.Content == c.Old }

// Appended is, for a file that existed, the line the change keeps and
// what it adds after it: an edit that replaces the last line of the old
// text (found once in it) with itself and the addition. false when the
// change does more than add at the end.
func (c Change) Appended() (old, repl string, ok bool) {
	if !c.Existed {
		return "", "", false
	}
	trimmed := strings.TrimRight(c.Old, "\n")
	if trimmed == "" || !strings.HasPrefix(c.Content, trimmed) {
		return "", "", false
	}
	lines := strings.Split(trimmed, "\n")
	last := lines[len(lines)-1]
	if strings.TrimSpace(last) == "" || strings.Count(trimmed, last) != 1 {
		return "", "", false
	}
	return last, last + strings.TrimRight(c.Content[len(trimmed):], "\n"), true
}

// Work is what a worker does once it has read: the changes it writes, the
// check it runs after them, and what it will report.
type Work struct {
	// Changes are the files the worker writes; when Write is false, what
	// it proposes in its report instead (plan mode, a read-only task) or
	// claims without writing (claims-without-writing).
	Changes []Change
	Write   bool
	// Check is the command that checks the changes (the tests of the
	// packages a test task wrote), "" when there is none to run.
	Check string

	kind            string
	summary, output string
	metrics         map[string]any
	claimed         []string // claims-without-writing: the files the report names
}

// Outcome is what a face did with a Work.
type Outcome struct {
	Written []string // the files written (or already as the change wants them)
	Refused []string // "file: why" for each change the tools refused
	Failure string   // the output of a failed check or build
	Checked string   // the check that ran and passed
}

var (
	writePath       = regexp.MustCompile(`\b(?:Write|Writes|write|writes)\s+` + "`?" + `([\w./-]+\.[A-Za-z0-9]+)`)
	mdPath          = regexp.MustCompile(`[\w./-]+\.md\b`)
	expectedOutputs = regexp.MustCompile(`"expectedOutputs"\s*:\s*\[([^\]]*)\]`)
)

// taskText is the part of a worker's first prompt that says its task:
// from "## Your task:" to the user's request.
func (m *Mind) taskText() string {
	t := m.initial
	if i := strings.Index(t, "## Your task:"); i >= 0 {
		t = t[i:]
	}
	for _, stop := range []string{"The user's request", "## How to work", "## How to report"} {
		if i := strings.Index(t, stop); i > 0 {
			t = t[:i]
		}
	}
	return t
}

// declared are the files the task says it produces: the expectedOutputs
// of its new_task, the paths its text says to write, and for a
// documentation task the pages of the output folder its text names.
func (m *Mind) declared() []string {
	var out []string
	add := func(p string) {
		p = strings.TrimRight(strings.TrimPrefix(p, "./"), ".,:;`")
		if p != "" && !path.IsAbs(p) && !strings.HasPrefix(p, "..") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if e := expectedOutputs.FindStringSubmatch(m.initial); e != nil {
		for _, p := range quotedPath.FindAllStringSubmatch(e[1], -1) {
			add(p[1])
		}
	}
	text := m.taskText()
	for _, w := range writePath.FindAllStringSubmatch(text, -1) {
		add(w[1])
	}
	if m.work() == workDocs {
		for _, p := range mdPath.FindAllString(text, -1) {
			if strings.HasPrefix(p, m.outputDir()+"/") {
				add(p)
			}
		}
	}
	return out
}

// ReadWhole reports whether the text read of p is all of it: as long as
// the listing's size, or, when the listing has no sizes, shorter than the
// 2000 lines a Read tool shows at most.
func (m *Mind) ReadWhole(p string) bool {
	text, ok := m.reads[p]
	if !ok {
		return false
	}
	for _, f := range m.files {
		if f.Path == p && f.Size > 0 {
			return int64(len(text)) >= f.Size
		}
	}
	return strings.Count(text, "\n") < 1990
}

// has reports whether the listing holds p.
func (m *Mind) has(p string) bool {
	return slices.ContainsFunc(m.files, func(f File) bool { return f.Path == p })
}

// readOnly reports whether the task's template says it changes nothing.
func (m *Mind) readOnly() bool {
	text := m.system + "\n" + m.initial + "\n" + m.prompt
	return strings.Contains(text, "This is read-only work") || strings.Contains(text, "this run reviews code; it changes nothing")
}

// scopeFiles are the files of the task's scope the worker reads, the
// source files first, at most n; else those of the listing the prompt
// names (by path, or by their folder with a slash), else the key files
// (three at most).
func (m *Mind) scopeFiles(n int) []string {
	if scope := slices.DeleteFunc(m.inScope(m.taskScope()), unreadable); len(scope) > 0 {
		sort.SliceStable(scope, func(i, j int) bool {
			return slices.Contains(sourceExt, path.Ext(scope[i])) && !slices.Contains(sourceExt, path.Ext(scope[j]))
		})
		return scope[:min(n, len(scope))]
	}
	var scope []string
	for _, f := range m.files {
		dir := path.Dir(f.Path)
		if strings.Contains(m.prompt, f.Path) || dir != "." && strings.Contains(m.prompt, dir+"/") {
			scope = append(scope, f.Path)
		}
	}
	if len(scope) == 0 {
		scope = m.KeyFiles(3)
	}
	return scope[:min(3, len(scope))]
}

// binaryExt are extensions of files an agent does not read as text.
var binaryExt = strings.Fields(".png .jpg .jpeg .gif .bmp .ico .icns .webp .svgz .pdf .zip .gz .tgz .bz2 .xz .7z .tar .jar .class .exe .dll .so .dylib .a .o .wasm .woff .woff2 .ttf .otf .mp3 .mp4 .wav .ogg .mov .db .sqlite .bin .dat")

// unreadable reports whether a worker leaves a file of its scope unread:
// test data, and files that are not text.
func unreadable(p string) bool {
	return ignoredDir(path.Dir(p)) || slices.Contains(binaryExt, strings.ToLower(path.Ext(p)))
}

// WorkerReads are the files a worker turn reads, in order: a page's
// component (and go.mod), an index's pages, a test task's packages (and
// the files that say how they are built and tested), a review's or bug
// hunt's area, else up to five files of its scope; and each file it will
// change that is there already.
func (m *Mind) WorkerReads() []string {
	var out []string
	add := func(p string) {
		if p != "" && m.has(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	switch m.work() {
	case workDocs:
		page, index := m.docTarget()
		if index {
			for _, p := range m.pagesBeside(page) {
				add(p)
			}
			add("README.md")
			add("go.mod")
		} else {
			for _, f := range m.scopeFiles(40) {
				add(f)
			}
			add("go.mod")
		}
		add(page)
	case workTests:
		for _, d := range m.testDirs() {
			for _, f := range m.sourcesIn(d) {
				add(f)
			}
		}
		add("go.mod")
		add("package.json")
		for _, d := range m.testDirs() {
			for _, src := range m.testSubjects(d) {
				plain, baton := testNames(src, strings.HasSuffix(src, ".go"))
				add(plain)
				add(baton)
			}
		}
	case workBugs, workReview:
		for _, f := range m.scopeFiles(20) {
			add(f)
		}
	default:
		for _, f := range m.scopeFiles(5) {
			add(f)
		}
		add(m.notesPath(out))
	}
	if len(out) > 60 {
		out = out[:60]
	}
	return out
}

// docTarget is the page a documentation task writes, and whether it is the
// index: the page its text names, else the page of its scope's folder.
func (m *Mind) docTarget() (page string, index bool) {
	dir := m.outputDir()
	for _, p := range m.declared() {
		if strings.HasSuffix(p, ".md") {
			page = p
			break
		}
	}
	if page == "" {
		name := "overview"
		if s := m.taskScope(); len(s) > 0 {
			name = pageName(strings.TrimSuffix(s[0], "/"), m.cwd)
			if !strings.HasSuffix(s[0], "/") && !m.isDir(s[0]) {
				name = pageName(path.Dir(s[0]), m.cwd)
			}
		}
		page = dir + "/" + name + ".md"
	}
	base := strings.ToLower(path.Base(page))
	index = (base == "readme.md" || base == "index.md") && (len(m.taskScope()) == 0 || strings.Contains(strings.ToLower(m.taskText()), "index"))
	return page, index
}

// isDir reports whether the listing holds files under p.
func (m *Mind) isDir(p string) bool {
	return slices.ContainsFunc(m.files, func(f File) bool { return strings.HasPrefix(f.Path, strings.TrimSuffix(p, "/")+"/") })
}

// pagesBeside are the Markdown pages in the folder of page, but page.
func (m *Mind) pagesBeside(page string) []string {
	var out []string
	for _, f := range m.files {
		if path.Dir(f.Path) == path.Dir(page) && strings.HasSuffix(f.Path, ".md") && f.Path != page {
			out = append(out, f.Path)
		}
	}
	return out
}

// docName is the name of what a page documents: the component its title
// names ("Write the api page"), else the folder of its scope (of the
// scope's first file), else its title.
func (m *Mind) docName() string {
	if t := regexp.MustCompile(`## Your task: \S+ - Write the (.+) page`).FindStringSubmatch(m.initial); t != nil {
		return t[1]
	}
	if s := m.taskScope(); len(s) > 0 {
		first := strings.TrimSuffix(s[0], "/")
		if d := path.Dir(first); !m.isDir(first) && d != "." {
			return d
		}
		return first
	}
	if t := regexp.MustCompile(`## Your task: \S+ - (.+)`).FindStringSubmatch(m.initial); t != nil {
		return strings.TrimSpace(t[1])
	}
	return m.project()
}

// testDirs are the folders a test task writes tests for: the folders of
// its scope (a folder itself, not its subfolders, each of which is a
// package of its own), else those of the files it works on.
func (m *Mind) testDirs() []string {
	var out []string
	add := func(d string) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, s := range m.taskScope() {
		switch {
		case strings.HasSuffix(s, "/") || m.isDir(s):
			add(strings.TrimSuffix(strings.TrimSuffix(s, "/"), "/."))
		case m.has(s):
			add(path.Dir(s))
		}
	}
	if len(out) == 0 {
		for _, f := range m.scopeFiles(5) {
			if slices.Contains(sourceExt, path.Ext(f)) {
				add(path.Dir(f))
			}
		}
	}
	return out
}

// sourcesIn are the source files directly in dir (no tests), at most 40.
func (m *Mind) sourcesIn(dir string) []string {
	var out []string
	for _, f := range m.files {
		if path.Dir(f.Path) == dir && slices.Contains(sourceExt, path.Ext(f.Path)) && !isTest(f.Path) {
			out = append(out, f.Path)
		}
	}
	return out[:min(40, len(out))]
}

// testSubjects are what a test task writes a test file for in dir: the Go
// package (by its first file), else each Python or JavaScript module (five
// at most).
func (m *Mind) testSubjects(dir string) []string {
	var out []string
	for _, f := range m.sourcesIn(dir) {
		if strings.HasSuffix(f, ".go") {
			return []string{f}
		}
		if scriptLang(f) != "" && len(out) < 5 {
			out = append(out, f)
		}
	}
	return out
}

// testNames are the plain and the Baton name of the test file of src.
func testNames(src string, goPkg bool) (plain, baton string) {
	plain = testFileName(src, goPkg, func(string) bool { return false })
	baton = testFileName(src, goPkg, func(string) bool { return true })
	return plain, baton
}

// testTarget is the test file the worker writes for src: the plain name,
// unless a file the agent did not write holds it.
func (m *Mind) testTarget(src string) string {
	plain, baton := testNames(src, strings.HasSuffix(src, ".go"))
	if !m.has(plain) || strings.Contains(m.reads[plain], "by Baton's scripted agent (no AI)") {
		return plain
	}
	return baton
}

// notesPath is where a worker of no particular kind writes its notes: the
// folder of the first file it read.
func (m *Mind) notesPath(read []string) string {
	return path.Join(scopeDir(read), m.TaskID()+"-notes.md")
}

// scopeDir is the folder of the scope's first file ("." for the top).
func scopeDir(scope []string) string {
	if len(scope) == 0 {
		return "."
	}
	return path.Dir(scope[0])
}

// change is the change that gives p content: a new file, the file as it
// is when it holds content already, or (add) the file that was there with
// content added at its end between marks, replacing what an earlier turn
// added there.
func (m *Mind) change(p, content, id string, add bool) Change {
	if !m.has(p) {
		return Change{Path: p, Content: content}
	}
	old := m.reads[p]
	c := Change{Path: p, Content: content, Existed: true, Old: old}
	// A file the agent wrote whole for this task is written whole again.
	ours := strings.Contains(old, "by Baton's scripted agent (no AI) for "+id) && !strings.Contains(old, fmt.Sprintf(markBegin, id))
	if old != content && add && !ours {
		c.Content = appendPart(old, id, demote(content))
	}
	return c
}

// demote moves every Markdown heading of text one level down (outside
// code fences).
func demote(text string) string {
	lines := strings.Split(text, "\n")
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}

// Work is what the worker makes of what it read (files): the page, the
// index, the tests, the findings or the notes of its task, and whether
// it writes them (not in plan mode or a read-only task). The scenarios
// that lie change it: claims-without-writing writes nothing and claims
// the files anyway, verification-lies adds a file that breaks the build
// and runs no check, out-of-scope adds a file outside the scope.
func (m *Mind) Work(files []string) Work {
	id := m.TaskID()
	w := Work{kind: m.work(), Write: !m.planMode && !m.readOnly()}
	lines := 0
	for _, f := range files {
		lines += strings.Count(m.reads[f], "\n")
	}
	w.metrics = map[string]any{"files_read": len(files), "lines_read": lines}
	footer := "\n---\n\n_Written by Baton's scripted agent (no AI) for " + id + " from the files it read._\n"
	switch w.kind {
	case workDocs:
		page, index := m.docTarget()
		if index {
			pages := m.pagesBeside(page)
			var missing []string
			for _, p := range m.declared() {
				if p != page && strings.HasSuffix(p, ".md") && path.Dir(p) == path.Dir(page) && !m.has(p) {
					missing = append(missing, p)
				}
			}
			w.Changes = []Change{m.change(page, m.docIndex(page, pages, missing)+footer, id, true)}
			w.summary = fmt.Sprintf("Wrote the index %s, which links %s.", page, count(len(pages), "page"))
			if len(missing) > 0 {
				w.summary += fmt.Sprintf(" %s the task names %s missing: %s.", count(len(missing), "page"), isAre(len(missing)), strings.Join(missing, ", "))
			}
			w.metrics["pages_linked"] = len(pages)
			break
		}
		var src []string
		for _, f := range files {
			if f != page && (f != "go.mod" || under("go.mod", m.taskScope())) {
				src = append(src, f)
			}
		}
		name := m.docName()
		w.Changes = []Change{m.change(page, m.docPage(page, name, src)+footer, id, true)}
		units := m.units(src)
		names := 0
		for _, u := range units {
			names += len(u.symbols)
		}
		w.summary = fmt.Sprintf("Wrote %s about %s from its %s (%s): %s documented.", page, name, count(len(src), "file"), count(lines, "line"), count(names, "exported name"))
		w.metrics["exported_names"] = names
	case workTests:
		var dirs []string
		tests := 0
		for _, d := range m.testDirs() {
			for _, src := range m.testSubjects(d) {
				target := m.testTarget(src)
				var text string
				if strings.HasSuffix(src, ".go") {
					var cases, pins int
					text, cases, pins = goTestFile(d, m.reads, target, id)
					if checkGo(target, text) != nil {
						continue
					}
					tests += cases + pins
				} else {
					u := scriptUnit(src, m.reads[src])
					if u.lang == "Python" {
						text = pyTestFile(u, id)
					} else {
						text = jsTestFile(u, m.reads[src], jsRunner(m.reads["package.json"]), id)
					}
					tests += max(1, len(u.symbols))
				}
				w.Changes = append(w.Changes, m.change(target, text, id, false))
				if !slices.Contains(dirs, d) {
					dirs = append(dirs, d)
				}
			}
		}
		w.Check = m.checkFor(dirs)
		var paths []string
		for _, c := range w.Changes {
			paths = append(paths, c.Path)
		}
		w.summary = fmt.Sprintf("Wrote %s for %s (%s checked).", strings.Join(paths, ", "), strings.Join(dirs, ", "), count(tests, "exported name"))
		if len(paths) == 0 {
			w.summary = "Found no package in the scope to write tests for: " + strings.Join(m.taskScope(), ", ") + "."
		}
		w.metrics["tests_added"] = tests
	case workBugs, workReview:
		found := m.findings(files, w.kind == workBugs, 20)
		w.output = findingsOutput(found, files)
		what := "Reviewed"
		if w.kind == workBugs {
			what = "Hunted bugs in"
		}
		w.summary = fmt.Sprintf("%s %s (%s) for %s: %s.", what, count(len(files), "file"), count(lines, "line"), id, count(len(found), "finding"))
		w.metrics["findings"] = len(found)
		w.Write = false
	default:
		var outline []string
		for _, f := range files {
			outline = append(outline, fmt.Sprintf("- %s: %s", f, firstLine(m.reads[f], 80)))
		}
		w.summary = fmt.Sprintf("Read %s (%s) for %s.", count(len(files), "file"), count(lines, "line"), id)
		w.output = "## " + id + "\n\n" + strings.Join(outline, "\n")
		if !m.readOnly() {
			w.Changes = []Change{m.change(m.notesPath(files), "# "+id+"\n\n"+w.summary+"\n\n"+w.output+"\n", id, false)}
		}
	}
	if !w.Write && len(w.Changes) > 0 && !m.lies("claims-without-writing") {
		why := "This task changes nothing"
		if m.planMode {
			why = "Plan mode: I changed nothing"
		}
		var props []string
		for _, c := range w.Changes {
			props = append(props, proposal(c))
		}
		w.output = strings.TrimSpace(w.output+"\n\n"+why+". Proposed changes:\n\n"+strings.Join(props, "\n")) + "\n"
		w.summary = strings.Replace(w.summary, "Wrote ", "Proposes ", 1)
		w.Check = ""
	}
	m.lie(&w)
	if m.scenario == "out-of-scope" && w.Write {
		f := m.outsideScope(files)
		w.Changes = append(w.Changes, Change{Path: f, Content: "Written by " + id + ", outside its scope.\n"})
	}
	return w
}

// checkFor is the command that runs the tests of dirs: go test of the Go
// packages, the package.json test script for JavaScript, Python's unittest
// discovery in a Python project (with a pyproject.toml, setup.py, …),
// cargo test for Rust; "" when the agent knows none.
func (m *Mind) checkFor(dirs []string) string {
	var goPkgs, pyDirs, cmds []string
	js, rust := false, false
	for _, d := range dirs {
		for _, f := range m.sourcesIn(d) {
			switch {
			case strings.HasSuffix(f, ".go") && !slices.Contains(goPkgs, "./"+d):
				goPkgs = append(goPkgs, "./"+d)
			case scriptLang(f) == "Python" && !slices.Contains(pyDirs, d):
				pyDirs = append(pyDirs, d)
			case scriptLang(f) != "" && scriptLang(f) != "Python":
				js = true
			case strings.HasSuffix(f, ".rs"):
				rust = true
			}
		}
	}
	if len(goPkgs) > 0 && m.has("go.mod") {
		for i, p := range goPkgs {
			if p == "./." {
				goPkgs[i] = "."
			}
		}
		cmds = append(cmds, "go test "+strings.Join(goPkgs, " "))
	}
	if js && m.has("package.json") && hasTestScript(m.reads["package.json"]) {
		cmds = append(cmds, "npm test")
	}
	if slices.ContainsFunc([]string{"pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini"}, m.has) {
		for _, d := range pyDirs {
			cmds = append(cmds, "python3 -m unittest discover -s "+d+" -p 'test_*.py'")
		}
	}
	if rust && m.has("Cargo.toml") {
		cmds = append(cmds, "cargo test")
	}
	return strings.Join(cmds, " && ")
}

// hasTestScript reports whether a package.json has a test script that
// tests something.
func hasTestScript(pkgJSON string) bool {
	m := regexp.MustCompile(`"test"\s*:\s*"([^"]*)"`).FindStringSubmatch(pkgJSON)
	return m != nil && m[1] != "" && !strings.Contains(m[1], "no test specified")
}

// outsideScope is a file the scope does not cover: one of another folder,
// else a new one.
func (m *Mind) outsideScope(scope []string) string {
	dir := scopeDir(scope)
	for _, f := range m.files {
		if path.Dir(f.Path) != dir && !slices.Contains(scope, f.Path) {
			return path.Join(path.Dir(f.Path), "OUT-OF-SCOPE.md")
		}
	}
	if dir == "." {
		return "outside-scope/OUT-OF-SCOPE.md"
	}
	return "OUT-OF-SCOPE.md"
}

// Interrupts is the report of a worker that stops before its work, once it
// has read (first: the session's first completion): clarification's
// question, conflict's conflict. false when the worker goes on.
func (m *Mind) Interrupts(read []string, first bool) (Report, bool) {
	id := m.TaskID()
	switch {
	case m.scenario == "clarification" && first:
		return Report{id: id, kind: reportQuestion, before: "Before I write " + id + " I need an answer.",
			summary:  "Read " + strings.Join(read, ", ") + "; the output format needs a decision before " + id + " can be written.",
			question: "Should the output of " + id + " be Markdown or plain text?"}, true
	case m.scenario == "conflict":
		file := "README.md"
		if len(read) > 0 {
			file = read[0]
		}
		return Report{id: id, kind: reportConflict, before: "I stopped " + id + ": another agent changed the same file.",
			summary:    "Stopped " + id + ": " + file + " was changed by another agent while this task was working on it.",
			conflict:   file + ": another agent changed the same lines while " + id + " was working on them",
			resolution: "keep the other agent's change and apply " + id + "'s part on top of it"}, true
	}
	return Report{}, false
}

// Report is the worker's report once the face did its work (o): failed
// when worker-fails or deadlock says so, a check failed or a change was
// refused; else a success naming the files written. wrong-task-id puts
// another task's id on it.
func (m *Mind) Report(w Work, o Outcome) Report {
	id := m.TaskID()
	if m.lies("wrong-task-id") {
		id = otherID(id)
	}
	failure := o.Failure
	if len(o.Refused) > 0 && failure == "" {
		failure = "the changes were refused: " + strings.Join(o.Refused, "; ")
	}
	if m.scenario == "worker-fails" || failure != "" || m.scenario == "deadlock" && strings.HasSuffix(id, "001") {
		e := "simulated failure: the build of the project failed"
		if failure != "" {
			e = "the build or tests of the project failed: " + firstLine(failure, 300)
			if len(o.Refused) > 0 && o.Failure == "" {
				e = firstLine(failure, 300)
			}
		}
		rep := Report{id: id, kind: reportFailed, before: "I could not finish " + id + ".",
			summary: "The build of the project failed, so " + id + " could not be done.", err: e, files: o.Written}
		if m.scenario == "worker-fails" {
			rep.warnings = []string{"scenario worker-fails"}
		}
		return rep
	}
	rep := Report{id: id, kind: reportSuccess, before: "Task " + id + " is done.", summary: w.summary, output: w.output,
		metrics: w.metrics, files: o.Written, checked: o.Checked}
	if w.claimed != nil {
		rep.files = w.claimed
	}
	for _, c := range w.Changes {
		if slices.Contains(rep.files, c.Path) && c.Existed {
			rep.modified = append(rep.modified, c.Path)
		}
	}
	if o.Checked != "" {
		rep.summary += " `" + o.Checked + "` passes."
	}
	return rep
}

// lies reports whether the worker or verifier lies now in scenario name:
// always, or for the first times=N answers of the phase.
func (m *Mind) lies(name string) bool {
	if m.scenario != name {
		return false
	}
	n, err := strconv.Atoi(m.params["times"])
	return err != nil || n <= 0 || m.attempt <= n
}

// lie changes the work as the lying scenarios say.
func (m *Mind) lie(w *Work) {
	switch {
	case m.lies("claims-without-writing"):
		w.claimed = []string{}
		for _, c := range w.Changes {
			w.claimed = append(w.claimed, c.Path)
		}
		if len(w.claimed) == 0 {
			w.claimed = append(w.claimed, m.declared()...)
		}
		if len(w.claimed) == 0 {
			w.claimed = append(w.claimed, m.notesPath(m.scopeFiles(5)))
		}
		w.Write, w.Check = false, ""
		w.summary = strings.Replace(w.summary, "Proposes ", "Wrote ", 1)
	case m.lies("verification-lies") && w.Write:
		if c, ok := m.breaker(); ok {
			w.Changes = append(w.Changes, c)
		}
		w.Check = ""
	}
}

// breaker is the file verification-lies adds to break the project's
// checks: a Go file that does not compile in a package of the task's
// scope, else a Python or JavaScript test that fails; false when the
// scope holds no such code.
func (m *Mind) breaker() (Change, bool) {
	id := m.TaskID()
	dirs := m.testDirs()
	for _, f := range m.scopeFiles(40) {
		if d := path.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	why := "Written by Baton's scripted agent (no AI) for " + id + " in the verification-lies scenario: it breaks the project's checks on purpose."
	for _, d := range dirs {
		for _, f := range m.sourcesIn(d) {
			switch scriptLang(f) {
			case "Python":
				return Change{Path: path.Join(d, "test_baton_broken.py"), Content: "# " + why + "\nimport unittest\n\n\nclass TestBatonBroken(unittest.TestCase):\n    def test_broken(self):\n        self.fail(\"broken on purpose\")\n"}, true
			case "JavaScript":
				return Change{Path: path.Join(d, "baton-broken.test.js"), Content: "// " + why + "\nthrow new Error('broken on purpose');\n"}, true
			}
			if !strings.HasSuffix(f, ".go") {
				continue
			}
			name := parseGoPackage(d, m.reads).name
			if name == "" {
				name = strings.ToLower(exportedName(path.Base(d)))
			}
			return Change{Path: path.Join(d, "baton_broken.go"),
				Content: "// " + why + "\n\npackage " + name + "\n\nvar _ = batonUndefined" + exportedName(id) + "\n"}, true
		}
	}
	return Change{}, false
}

// otherID is another task's id in the shape of id: the first task's
// (task_001, DOCS-001), or the second's for the first task.
func otherID(id string) string {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	if i == len(id) {
		return "task_001"
	}
	n, _ := strconv.Atoi(id[i:])
	other := 1
	if n == 1 {
		other = 2
	}
	return fmt.Sprintf("%s%0*d", id[:i], len(id)-i, other)
}
