package checks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Found is what Detect found in a folder: the checks it chose and why.
type Found struct {
	Checks []Check `json:"checks"`
	// Why names what each choice was made from ("go.mod", "the Makefile's
	// test target").
	Why []string `json:"why"`
}

// Note says in one sentence what was found and chosen ("" when nothing
// was).
func (f Found) Note() string {
	if len(f.Checks) == 0 {
		return ""
	}
	return fmt.Sprintf("Baton runs the project's checks it found (%s): %s.", strings.Join(f.Why, ", "), Commands(f.Checks))
}

// Commands lists the checks' commands as a person reads them.
func Commands(cs []Check) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Command)
	}
	return strings.Join(out, ", ")
}

// NoneFound says what Detect looks for, for a run that found nothing.
const NoneFound = "no checks ran: the template names none and Baton found none in the project " +
	"(a Makefile test target, go.mod, a package.json test script, Cargo.toml, pytest)"

// FromCommands are the checks a template names, each called by its first
// words.
func FromCommands(commands []string) []Check {
	var out []Check
	for _, c := range commands {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		out = append(out, Check{Name: nameOf(c), Command: c})
	}
	return out
}

// nameOf calls a command by its program and first argument that is not a
// flag or a path pattern ("go test", "npm test", "make").
func nameOf(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return command
	}
	name := filepath.Base(f[0])
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "./=&|;<>") {
			continue
		}
		return name + " " + w
	}
	return name
}

// npmPlaceholder is the test script "npm init" writes, which only fails.
var npmPlaceholder = regexp.MustCompile(`no test specified`)

// makeTest finds a "test" target in a Makefile.
var makeTest = regexp.MustCompile(`(?m)^test\s*:([^=]|$)`)

// Detect finds the checks of the project in dir, in this order of
// preference: a Makefile with a test target is the project's own way to
// check itself and is chosen alone; otherwise each of these found at the
// top of dir adds its checks: go.mod (go build ./..., go test ./...), a
// package.json whose test script is not npm's placeholder (npm test),
// Cargo.toml (cargo test), and pytest (its configuration, conftest.py, or
// test files: python3 -m pytest, or python3 -m unittest when pytest is not
// installed and nothing asks for it).
func Detect(dir string) Found {
	var f Found
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil && makeTest.Match(b) {
			f.Checks = append(f.Checks, Check{Name: "make test", Command: "make test"})
			f.Why = append(f.Why, "the "+name+"'s test target")
			return f
		}
	}
	if exists(dir, "go.mod") {
		f.Checks = append(f.Checks, Check{Name: "go build", Command: "go build ./..."}, Check{Name: "go test", Command: "go test ./..."})
		f.Why = append(f.Why, "go.mod")
	}
	if script := npmTestScript(dir); script != "" {
		f.Checks = append(f.Checks, Check{Name: "npm test", Command: "npm test"})
		f.Why = append(f.Why, "package.json's test script")
	}
	if exists(dir, "Cargo.toml") {
		f.Checks = append(f.Checks, Check{Name: "cargo test", Command: "cargo test"})
		f.Why = append(f.Why, "Cargo.toml")
	}
	if why, configured := pythonTests(dir); why != "" {
		if configured || hasPytest() {
			f.Checks = append(f.Checks, Check{Name: "pytest", Command: "python3 -m pytest -q"})
		} else {
			f.Checks = append(f.Checks, Check{Name: "unittest", Command: "python3 -m unittest discover -q"})
		}
		f.Why = append(f.Why, why)
	}
	return f
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// npmTestScript is package.json's test script ("" when there is none, or
// only npm's placeholder).
func npmTestScript(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	s := strings.TrimSpace(pkg.Scripts["test"])
	if s == "" || npmPlaceholder.MatchString(s) {
		return ""
	}
	return s
}

// pythonTests says why dir has Python tests ("" when it has none) and
// whether pytest is asked for by name (its configuration, conftest.py).
func pythonTests(dir string) (why string, configured bool) {
	switch {
	case exists(dir, "pytest.ini"):
		return "pytest.ini", true
	case exists(dir, "conftest.py"):
		return "conftest.py", true
	case fileHas(filepath.Join(dir, "pyproject.toml"), "[tool.pytest"):
		return "pyproject.toml's pytest section", true
	case fileHas(filepath.Join(dir, "setup.cfg"), "[tool:pytest]"):
		return "setup.cfg's pytest section", true
	case fileHas(filepath.Join(dir, "tox.ini"), "[pytest]"):
		return "tox.ini's pytest section", true
	}
	for _, pattern := range []string{"test_*.py", "*_test.py", "tests/test_*.py", "tests/*_test.py", "test/test_*.py"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return "Python test files", false
		}
	}
	return "", false
}

func fileHas(path, text string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), text) {
			return true
		}
	}
	return false
}

// hasPytest reports whether python3 can import pytest.
func hasPytest() bool {
	return exec.Command("python3", "-c", "import pytest").Run() == nil
}
