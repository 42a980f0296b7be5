package agent

import (
	"fmt"
	"path"
	"strings"
)

// The tests the agent writes for a Python or JavaScript module: the module
// loads, and each public function and class it defines is there and
// callable. The test runner follows the project's (the package.json test
// script for JavaScript: vitest, jest, mocha, else node:test; unittest
// for Python, which pytest runs too).

// pyTestFile is the test of a Python module for task id.
func pyTestFile(u unit, id string) string {
	mod := strings.TrimSuffix(path.Base(u.file), ".py")
	var names []string
	for _, s := range u.symbols {
		names = append(names, fmt.Sprintf("%q", s.name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"Tests of %s, written for %s by Baton's scripted agent (no AI): the\nmodule loads and defines its public names.\"\"\"\n\n", u.file, id)
	b.WriteString("import importlib.util\nimport pathlib\nimport unittest\n\n")
	fmt.Fprintf(&b, "_SPEC = importlib.util.spec_from_file_location(%q, pathlib.Path(__file__).with_name(%q))\n", mod, path.Base(u.file))
	b.WriteString("MODULE = importlib.util.module_from_spec(_SPEC)\n_SPEC.loader.exec_module(MODULE)\n\n\n")
	fmt.Fprintf(&b, "class Test%sPublicNames(unittest.TestCase):\n", exportedName(mod))
	b.WriteString("    def test_public_names_are_callable(self):\n")
	if len(names) == 0 {
		b.WriteString("        self.assertTrue(hasattr(MODULE, \"__name__\"))\n")
	} else {
		fmt.Fprintf(&b, "        for name in [%s]:\n", strings.Join(names, ", "))
		b.WriteString("            with self.subTest(name=name):\n                self.assertTrue(callable(getattr(MODULE, name, None)), name + \" is missing or not callable\")\n")
	}
	b.WriteString("\n\nif __name__ == \"__main__\":\n    unittest.main()\n")
	return b.String()
}

// jsRunner is the test runner of a package.json's test script.
func jsRunner(pkgJSON string) string {
	for _, r := range []string{"vitest", "jest", "mocha"} {
		if strings.Contains(pkgJSON, `"`+r) || strings.Contains(pkgJSON, " "+r) {
			return r
		}
	}
	return "node"
}

// jsTestFile is the test of a JavaScript or TypeScript module (text its
// source) for task id, for the runner the project uses.
func jsTestFile(u unit, text, runner, id string) string {
	base := path.Base(u.file)
	importPath := "./" + base
	if ext := path.Ext(base); ext == ".ts" || ext == ".tsx" {
		importPath = "./" + strings.TrimSuffix(base, ext)
	}
	var funcs, others []string
	for _, s := range u.symbols {
		if s.kind == "func" || s.kind == "class" {
			funcs = append(funcs, fmt.Sprintf("'%s'", s.name))
		} else {
			others = append(others, fmt.Sprintf("'%s'", s.name))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Tests of %s, written for %s by Baton's scripted agent (no AI): the module\n// loads and exports its public names.\n", u.file, id)
	cjs := commonJS(text)
	switch runner {
	case "vitest":
		b.WriteString("import { describe, expect, it } from 'vitest';\n")
	case "jest":
		if !cjs {
			b.WriteString("import { describe, expect, it } from '@jest/globals';\n")
		}
	case "mocha":
		if cjs {
			b.WriteString("const assert = require('node:assert/strict');\n")
		} else {
			b.WriteString("import assert from 'node:assert/strict';\n")
		}
	default:
		if cjs {
			b.WriteString("const { describe, it } = require('node:test');\nconst assert = require('node:assert/strict');\n")
		} else {
			b.WriteString("import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\n")
		}
	}
	if cjs {
		fmt.Fprintf(&b, "const mod = require('%s');\n\n", importPath)
	} else {
		fmt.Fprintf(&b, "import * as mod from '%s';\n\n", importPath)
	}
	expect := runner == "vitest" || runner == "jest"
	fmt.Fprintf(&b, "describe('%s', () => {\n", u.file)
	if len(funcs) > 0 {
		check := "assert.equal(typeof mod[name], 'function', name)"
		if expect {
			check = "expect(typeof mod[name]).toBe('function')"
		}
		fmt.Fprintf(&b, "  it('exports its functions', () => {\n    for (const name of [%s]) {\n      %s;\n    }\n  });\n", strings.Join(funcs, ", "), check)
	}
	if len(others) > 0 {
		check := "assert.notEqual(typeof mod[name], 'undefined', name)"
		if expect {
			check = "expect(typeof mod[name]).not.toBe('undefined')"
		}
		fmt.Fprintf(&b, "  it('exports its values', () => {\n    for (const name of [%s]) {\n      %s;\n    }\n  });\n", strings.Join(others, ", "), check)
	}
	if len(funcs)+len(others) == 0 {
		b.WriteString("  it('loads', () => {\n")
		if expect {
			b.WriteString("    expect(mod).toBeTruthy();\n")
		} else {
			b.WriteString("    assert.ok(mod);\n")
		}
		b.WriteString("  });\n")
	}
	b.WriteString("});\n")
	return b.String()
}

// testFileName is the test file of a module or package: Go's
// <folder>_test.go (the top-level package: after its first file),
// Python's test_<module>.py, JavaScript's <module>.test.<ext>; when that
// file exists, one named for Baton beside it (…_baton_test.go,
// test_<module>_baton.py, <module>.baton.test.<ext>). exists says which
// files the listing holds; goFirst is the first source file of a Go
// package at the top level.
func testFileName(src string, goPkg bool, exists func(string) bool) string {
	dir := path.Dir(src)
	join := func(name string) string { return path.Join(dir, name) }
	var plain, baton string
	switch {
	case goPkg:
		base := strings.TrimSuffix(path.Base(src), ".go")
		if dir != "." {
			base = path.Base(dir)
		}
		base = strings.ToLower(exportedName(base))
		plain, baton = join(base+"_test.go"), join(base+"_baton_test.go")
	case scriptLang(src) == "Python":
		mod := strings.TrimSuffix(path.Base(src), ".py")
		plain, baton = join("test_"+mod+".py"), join("test_"+mod+"_baton.py")
	default:
		ext := path.Ext(src)
		mod := strings.TrimSuffix(path.Base(src), ext)
		plain, baton = join(mod+".test"+ext), join(mod+".baton.test"+ext)
	}
	if exists(plain) {
		return baton
	}
	return plain
}
