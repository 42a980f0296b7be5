package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The project's domain (seed 004: journal.index.project.domain, the domain
// weight of skill matching) is read from the files at the top of the
// project folder: go.mod is a Go backend, package.json the web (frontend
// when it depends on a UI framework), and so on.

// Project is what the files at the top of a project folder say about it.
type Project struct {
	// Domains in the vocabulary of the skills' domain lists, sorted.
	Domains []string `json:"domains"`
	// Markers are the files the domains were read from.
	Markers []string `json:"markers"`
	// Layout names the folders at the top of the project (not hidden, not
	// vendored), sorted.
	Layout []string `json:"layout,omitempty"`
}

// marker is one file that tells a domain.
type marker struct {
	file    string
	domains []string
}

var markers = []marker{
	{"go.mod", []string{"go", "backend"}},
	{"package.json", []string{"web", "javascript"}},
	{"tsconfig.json", []string{"web", "typescript"}},
	{"Cargo.toml", []string{"rust", "backend"}},
	{"pyproject.toml", []string{"python", "backend"}},
	{"requirements.txt", []string{"python", "backend"}},
	{"setup.py", []string{"python", "backend"}},
	{"pom.xml", []string{"java", "backend"}},
	{"build.gradle", []string{"java", "backend"}},
	{"build.gradle.kts", []string{"kotlin", "backend"}},
	{"Gemfile", []string{"ruby", "backend"}},
	{"composer.json", []string{"php", "backend", "web"}},
	{"Package.swift", []string{"swift", "ios"}},
	{"mkdocs.yml", []string{"docs"}},
	{"CMakeLists.txt", []string{"c++", "native"}},
}

// frontendDeps are package.json dependencies that make the project a
// frontend.
// frontend, with the domain each adds.
var frontendDeps = map[string]string{"svelte": "svelte", "react": "react", "preact": "react", "next": "react",
	"vue": "vue", "nuxt": "vue", "@angular/core": "angular", "solid-js": "solid", "vite": ""}

// DetectProject reads the project folder cwd. It reads only the top level
// (and package.json's dependencies); nothing found is an empty Project.
func DetectProject(cwd string) Project {
	var p Project
	add := func(ds ...string) {
		for _, d := range ds {
			if !slices.Contains(p.Domains, d) {
				p.Domains = append(p.Domains, d)
			}
		}
	}
	for _, m := range markers {
		if fi, err := os.Stat(filepath.Join(cwd, m.file)); err == nil && fi.Mode().IsRegular() {
			p.Markers = append(p.Markers, m.file)
			add(m.domains...)
		}
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "package.json")); err == nil {
		var pkg struct {
			Dependencies    map[string]any `json:"dependencies"`
			DevDependencies map[string]any `json:"devDependencies"`
		}
		if json.Unmarshal(b, &pkg) == nil {
			for dep, domain := range frontendDeps {
				_, a := pkg.Dependencies[dep]
				_, b := pkg.DevDependencies[dep]
				if a || b {
					add("frontend")
					if domain != "" {
						add(domain)
					}
				}
			}
			if _, ok := pkg.DevDependencies["typescript"]; ok {
				add("typescript")
			}
		}
	}
	if entries, err := os.ReadDir(cwd); err == nil {
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() && !strings.HasPrefix(n, ".") && n != "node_modules" && n != "vendor" {
				p.Layout = append(p.Layout, n)
			}
			if !e.IsDir() && (strings.HasSuffix(n, ".xcodeproj") || n == "AndroidManifest.xml") {
				p.Markers = append(p.Markers, n)
				if n == "AndroidManifest.xml" {
					add("android")
				} else {
					add("ios")
				}
			}
		}
		for _, e := range entries {
			if e.IsDir() && strings.HasSuffix(e.Name(), ".xcodeproj") {
				p.Markers = append(p.Markers, e.Name())
				add("ios")
			}
		}
	}
	sort.Strings(p.Domains)
	sort.Strings(p.Layout)
	return p
}

// DetectDomains returns the domains of the project folder cwd (nil when
// nothing tells).
func DetectDomains(cwd string) []string { return DetectProject(cwd).Domains }

// Summary describes the project in one sentence for a worker: what it is
// and the folders it is laid out in ("" when nothing was found).
func (p Project) Summary() string {
	if len(p.Markers) == 0 && len(p.Layout) == 0 {
		return ""
	}
	var b strings.Builder
	if len(p.Domains) > 0 {
		b.WriteString("A " + strings.Join(p.Domains, "/") + " project")
		b.WriteString(" (" + strings.Join(p.Markers, ", ") + ")")
	} else {
		b.WriteString("A project")
	}
	if len(p.Layout) > 0 {
		layout := p.Layout
		more := ""
		if len(layout) > 12 {
			layout, more = layout[:12], ", …"
		}
		b.WriteString(" laid out in " + strings.Join(layout, "/, ") + "/" + more)
	}
	b.WriteString("; follow its existing structure and conventions.")
	return b.String()
}
