package skills

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadDiscoveryOrderPrecedenceAndWarnings(t *testing.T) {
	t.Parallel()
	root := filepath.Join("testdata", "layout")
	lib := Load(LoadOptions{
		UserDir: filepath.Join(root, "chosen"),
		Cwd:     filepath.Join(root, "cwd"),
		Home:    filepath.Join(root, "home"),
	})
	var ids []string
	for _, s := range lib.Skills {
		ids = append(ids, s.ID+"@"+s.Source)
	}
	want := []string{
		"db-migrations@user", "go-testing@project", "http-handlers@project", "logging@project", "commit-messages@home",
		"api-review@builtin", "code-review@builtin", "debugging-systematically@builtin", "documentation-writing@builtin",
		"frontend-testing@builtin", "refactoring-safely@builtin", "security-review@builtin",
	}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("skills\n got %v\nwant %v", ids, want)
	}
	if s, _ := lib.Get("go-testing"); s.Name != "Go testing (project rules)" || s.Path != filepath.Join(root, "cwd", "skills", "go-testing.md") {
		t.Errorf("go-testing = %q from %s, want the project's definition", s.Name, s.Path)
	}
	if s, _ := lib.Get("http-handlers"); !reflect.DeepEqual(s.PairsWith, []string{"db-migrations"}) || !reflect.DeepEqual(s.Domain, []string{"backend"}) {
		t.Errorf("http-handlers read as %+v", s)
	}
	wantWarn := []struct{ path, reason string }{
		{"cwd/skills/README.md", "has no YAML front matter"},
		{"cwd/skills/bad-complexity.md", `complexity "medium" is not one of easy, normal, complex`},
		{"cwd/skills/bad-yaml.md", "invalid YAML front matter"},
		{"cwd/skills/no-id.md", "missing required field(s) in the front matter: id"},
		{"cwd/skills/notes.txt", "is not a markdown (.md) file"},
		{"cwd/skills/unclosed.md", "not closed by a --- line"},
		{"cwd/.claude/skills/http-handlers.md", `skill id "http-handlers" is already defined by ` + filepath.Join(root, "cwd", "skills", "nested", "http-handlers.md")},
		{"home/.claude/skills/db-migrations.md", `skill id "db-migrations" is already defined by ` + filepath.Join(root, "chosen", "db-migrations.md")},
		{"builtin/go-testing.md", `skill id "go-testing" is already defined by ` + filepath.Join(root, "cwd", "skills", "go-testing.md")},
	}
	if len(lib.Warnings) != len(wantWarn) {
		t.Fatalf("%d warnings, want %d: %v", len(lib.Warnings), len(wantWarn), lib.Warnings)
	}
	for i, w := range wantWarn {
		got := lib.Warnings[i]
		if !strings.HasSuffix(filepath.ToSlash(got.Path), w.path) || !strings.Contains(got.Reason, w.reason) {
			t.Errorf("warning %d = %v, want %s: …%s…", i, got, w.path, w.reason)
		}
	}
	sum := lib.Summary()
	for _, s := range []string{"Loaded 12 skills from testdata/layout/chosen, testdata/layout/cwd/skills,", " - testing: go-testing, frontend-testing\n", " - database: db-migrations\n", "Skipped testdata/layout/cwd/skills/notes.txt: is not a markdown (.md) file\n"} {
		if !strings.Contains(sum, filepath.FromSlash(s)) {
			t.Errorf("summary lacks %q:\n%s", s, sum)
		}
	}
	wantDirs := []Dir{
		{filepath.Join(root, "chosen"), SourceUser, true, 1},
		{filepath.Join(root, "cwd", "skills"), SourceProject, true, 2},
		{filepath.Join(root, "cwd", ".claude", "skills"), SourceProject, true, 1},
		{filepath.Join(root, "home", ".claude", "skills"), SourceHome, true, 1},
		{"builtin", SourceBuiltin, true, 7},
	}
	if !reflect.DeepEqual(lib.Dirs, wantDirs) {
		t.Errorf("dirs\n got %+v\nwant %+v", lib.Dirs, wantDirs)
	}
}

func TestLoadMissingFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name      string
		opts      LoadOptions
		wantWarns int
		wantN     int
	}{
		{"nothing but builtin", LoadOptions{Cwd: dir, Home: dir}, 0, 8},
		{"no builtin", LoadOptions{Cwd: dir, Home: dir, NoBuiltin: true}, 0, 0},
		{"chosen folder missing", LoadOptions{UserDir: filepath.Join(dir, "nope"), NoBuiltin: true}, 1, 0},
		{"chosen folder is a file", LoadOptions{UserDir: filepath.Join("testdata", "layout", "cwd", "skills", "notes.txt"), NoBuiltin: true}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lib := Load(tt.opts)
			if len(lib.Warnings) != tt.wantWarns || len(lib.Skills) != tt.wantN {
				t.Fatalf("%d skills, warnings %v; want %d skills and %d warnings", len(lib.Skills), lib.Warnings, tt.wantN, tt.wantWarns)
			}
		})
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	const head = "id: a\nname: A\ndomain: go\ntask_types: [testing]\nkeywords: [x]\ncomplexity: [easy]\n"
	tests := []struct {
		name    string
		in      string
		wantErr string
		check   func(Skill) bool
	}{
		{"minimal", "---\n" + head + "---\nBody text.\n", "", func(s Skill) bool {
			return s.ID == "a" && s.Body == "Body text." && reflect.DeepEqual(s.Domain, []string{"go"}) && s.Category == ""
		}},
		{"crlf and bom", "\xef\xbb\xbf---\r\n" + strings.ReplaceAll(head, "\n", "\r\n") + "---\r\nBody\r\n", "", func(s Skill) bool { return s.ID == "a" && s.Body == "Body" }},
		{"no body", "---\n" + head + "---", "", func(s Skill) bool { return s.Body == "" }},
		{"case and spaces folded", "---\nid: a\nname: A\ndomain: [' Go ', go]\ncategory: Testing\ntask_types: Testing\nkeywords: [Table-Driven]\ncomplexity: [Easy]\n---\n", "", func(s Skill) bool {
			return reflect.DeepEqual(s.Domain, []string{"go"}) && s.Category == "testing" && reflect.DeepEqual(s.TaskTypes, []string{"testing"}) &&
				reflect.DeepEqual(s.Keywords, []string{"table-driven"}) && reflect.DeepEqual(s.Complexity, []string{"easy"})
		}},
		{"no front matter", "# Title\n", "no YAML front matter", nil},
		{"empty file", "", "no YAML front matter", nil},
		{"empty front matter", "---\n---\nbody", "missing required field(s) in the front matter: id, name, domain, task_types, keywords, complexity", nil},
		{"bad yaml", "---\nid: [a\n---\n", "invalid YAML", nil},
		{"map where list", "---\n" + head + "pairs_with: {a: b}\n---\n", "invalid YAML", nil},
		{"space in id", "---\n" + strings.Replace(head, "id: a", "id: a b", 1) + "---\n", "must not contain spaces", nil},
		{"bad complexity", "---\n" + strings.Replace(head, "[easy]", "[hard]", 1) + "---\n", `complexity "hard"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(s) {
				t.Fatalf("parsed as %+v", s)
			}
		})
	}
}

// TestBuiltinSkills checks the shipped skills: all valid, unique, with real
// guidance, and each reachable by some task.
func TestBuiltinSkills(t *testing.T) {
	t.Parallel()
	lib := Load(LoadOptions{})
	if len(lib.Warnings) > 0 {
		t.Fatalf("builtin skills have warnings: %v", lib.Warnings)
	}
	if n := len(lib.Skills); n < 6 || n > 10 {
		t.Fatalf("%d builtin skills, want 6 to 10", n)
	}
	for _, s := range lib.Skills {
		if s.Category == "" || len(strings.Fields(s.Body)) < 150 {
			t.Errorf("%s: category %q, %d words of guidance; want a category and at least 150 words", s.ID, s.Category, len(strings.Fields(s.Body)))
		}
		for _, p := range s.PairsWith {
			if _, ok := lib.Get(p); !ok {
				t.Errorf("%s pairs with unknown skill %s", s.ID, p)
			}
		}
	}
}
