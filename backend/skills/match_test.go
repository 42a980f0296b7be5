package skills

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// sk builds a skill for the matching table: types and complexity are
// comma-separated.
func sk(id, category, types, complexity string, domain, keywords []string, pairs ...string) Skill {
	return Skill{ID: id, Name: id, Category: category, TaskTypes: strings.Split(types, ","), Complexity: strings.Split(complexity, ","),
		Domain: domain, Keywords: keywords, PairsWith: pairs}
}

// distinct returns n skills of distinct categories that every testing task
// passes, with no domain and no keyword hits.
func distinct(n int) []Skill {
	var out []Skill
	for i := range n {
		out = append(out, sk(fmt.Sprintf("s%02d", i), fmt.Sprintf("c%02d", i), "testing", "easy,normal,complex", []string{"none"}, []string{"zzz"}))
	}
	return out
}

func TestMatch(t *testing.T) {
	t.Parallel()
	all := "easy,normal,complex"
	tests := []struct {
		name   string
		task   TaskInfo
		skills []Skill
		want   []string // "id:score" in pick order
	}{
		{
			name: "hard filter on task type",
			task: TaskInfo{Type: "testing", Complexity: "easy", Objective: "add tests"},
			skills: []Skill{
				sk("docs", "documentation", "documentation", all, []string{"go"}, []string{"tests"}),
				sk("tests", "testing", "testing,bugfix", all, []string{"go"}, []string{"tests"}),
			},
			want: []string{"tests:1"},
		},
		{
			name: "hard filter on complexity",
			task: TaskInfo{Type: "testing", Complexity: "easy", Objective: "add tests"},
			skills: []Skill{
				sk("deep", "a", "testing", "normal,complex", nil, []string{"tests"}),
				sk("light", "b", "testing", "easy", nil, nil),
			},
			want: []string{"light:0"},
		},
		{
			name: "domain counts 3, each keyword 1",
			task: TaskInfo{Type: "feature", Complexity: "normal", Objective: "Add an HTTP endpoint for the user profile", AcceptanceCriteria: []string{"The handler returns JSON"}, ProjectDomains: []string{"Backend"}},
			skills: []Skill{
				sk("keywords", "a", "feature", all, []string{"frontend"}, []string{"http", "endpoint", "json", "grpc"}),
				sk("domain", "b", "feature", all, []string{"backend", "go"}, nil),
				sk("both", "c", "feature", all, []string{"backend"}, []string{"handler", "json", "json"}),
				sk("nothing", "d", "feature", all, []string{"mobile"}, []string{"swift"}),
			},
			want: []string{"both:5", "keywords:3", "domain:3", "nothing:0"}, // ties keep discovery order
		},
		{
			name: "one skill per category, the highest scorer",
			task: TaskInfo{Type: "testing", Complexity: "complex", Objective: "Write Go unit tests and a Playwright e2e test"},
			skills: []Skill{
				sk("frontend-testing", "testing", "testing", all, nil, []string{"playwright", "e2e"}),
				sk("go-testing", "testing", "testing", all, nil, []string{"go", "unit", "tests"}),
				sk("generic-testing", "testing", "testing", all, nil, []string{"tests"}),
				sk("review", "review", "testing", all, nil, nil),
			},
			want: []string{"go-testing:3", "review:0"},
		},
		{
			name:   "skills without category are their own category",
			task:   TaskInfo{Type: "testing", Complexity: "easy"},
			skills: []Skill{sk("a", "", "testing", all, nil, nil), sk("b", "", "testing", all, nil, nil)},
			want:   []string{"a:0", "b:0"},
		},
		{
			name: "pairing bonus lifts a skill over an equal one found earlier",
			task: TaskInfo{Type: "refactor", Complexity: "easy", Objective: "refactor the store and keep tests green"},
			skills: []Skill{
				sk("c", "c", "refactor", all, nil, []string{"store"}),
				sk("d", "d", "refactor", all, nil, []string{"green"}),
				sk("b", "b", "refactor", all, nil, []string{"tests"}, "a"),
				sk("a", "a", "refactor", all, nil, []string{"refactor", "store"}),
			},
			want: []string{"a:2", "b:2", "c:1"},
		},
		{
			name: "pairing bonus is 1 however many selected skills pair",
			task: TaskInfo{Type: "refactor", Complexity: "normal", Objective: "x y"},
			skills: []Skill{
				sk("x", "1", "refactor", all, nil, []string{"x"}),
				sk("y", "2", "refactor", all, nil, []string{"y"}),
				sk("z", "3", "refactor", all, nil, nil, "x", "y"),
			},
			want: []string{"x:1", "y:1", "z:1"},
		},
		{
			name: "pairing with a skill not selected gives nothing",
			task: TaskInfo{Type: "refactor", Complexity: "easy", Objective: "q"},
			skills: []Skill{
				sk("q", "1", "refactor", all, nil, []string{"q"}),
				sk("p", "2", "refactor", all, nil, nil, "missing"),
			},
			want: []string{"q:1", "p:0"},
		},
		{"easy takes at most 3", TaskInfo{Type: "testing", Complexity: "easy"}, distinct(5), []string{"s00:0", "s01:0", "s02:0"}},
		{"normal takes at most 7", TaskInfo{Type: "testing", Complexity: "normal"}, distinct(9), []string{"s00:0", "s01:0", "s02:0", "s03:0", "s04:0", "s05:0", "s06:0"}},
		{"complex takes at most 15", TaskInfo{Type: "testing", Complexity: "complex"}, distinct(17), func() []string {
			var w []string
			for i := range 15 {
				w = append(w, fmt.Sprintf("s%02d:0", i))
			}
			return w
		}()},
		{"high is complex", TaskInfo{Type: "testing", Complexity: "High"}, distinct(4), []string{"s00:0", "s01:0", "s02:0", "s03:0"}},
		{"low is easy", TaskInfo{Type: "testing", Complexity: "low"}, distinct(4), []string{"s00:0", "s01:0", "s02:0"}},
		{"no task type, no skills", TaskInfo{Complexity: "easy"}, distinct(2), nil},
		{"unknown complexity, no skills", TaskInfo{Type: "testing", Complexity: "huge"}, distinct(2), nil},
		{
			name: "phrases and symbols",
			task: TaskInfo{Type: "testing", Complexity: "easy", Objective: "Port the C++ parser; add table-driven tests.", Keywords: []string{"SQL injection"}},
			skills: []Skill{
				sk("k", "k", "testing", all, nil, []string{"c++", "table driven", "sql-injection", "injection sql", "parser"}),
			},
			want: []string{"k:4"},
		},
		{
			name: "a phrase does not span two criteria",
			task: TaskInfo{Type: "testing", Complexity: "easy", AcceptanceCriteria: []string{"uses a table", "driven by data"}},
			skills: []Skill{
				sk("k", "k", "testing", all, nil, []string{"table driven", "table"}),
			},
			want: []string{"k:1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, m := range MatchSkills(tt.task, tt.skills) {
				got = append(got, fmt.Sprintf("%s:%d", m.Skill.ID, m.Score))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("picked %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchReasons(t *testing.T) {
	t.Parallel()
	skills := []Skill{
		sk("a", "a", "testing", "normal", []string{"go"}, []string{"race", "tests"}),
		sk("b", "b", "testing", "normal", nil, nil, "a"),
	}
	got := MatchSkills(TaskInfo{Type: "testing", Complexity: "normal", Objective: "Fix the race in the tests", ProjectDomains: []string{"go"}}, skills)
	want := [][]string{
		{"task type testing and complexity normal match", "+3 domain go", "+2 keywords race, tests"},
		{"task type testing and complexity normal match", "+1 pairs with a"},
	}
	if len(got) != 2 || !reflect.DeepEqual(got[0].Reasons, want[0]) || !reflect.DeepEqual(got[1].Reasons, want[1]) {
		t.Fatalf("reasons %+v, want %v", got, want)
	}
}

// TestMatchBuiltin runs realistic tasks against the shipped skills.
func TestMatchBuiltin(t *testing.T) {
	t.Parallel()
	lib := Load(LoadOptions{})
	tests := []struct {
		task  TaskInfo
		first string
		not   []string
	}{
		{TaskInfo{Type: "testing", Complexity: "normal", Objective: "Add table-driven Go tests with -race for the store package", ProjectDomains: []string{"go"}}, "go-testing", []string{"frontend-testing"}},
		{TaskInfo{Type: "testing", Complexity: "easy", Objective: "Add Vitest tests for the Svelte settings component", ProjectDomains: []string{"frontend"}}, "frontend-testing", []string{"go-testing"}},
		{TaskInfo{Type: "documentation", Complexity: "easy", Objective: "Write the README guide for the CLI"}, "documentation-writing", nil},
		{TaskInfo{Type: "bugfix", Complexity: "normal", Objective: "Fix the flaky deadlock in the worker pool", ProjectDomains: []string{"go"}}, "debugging-systematically", nil},
		{TaskInfo{Type: "refactor", Complexity: "easy", Objective: "Refactor: extract and rename the config loader"}, "refactoring-safely", nil},
		{TaskInfo{Type: "design", Complexity: "complex", Objective: "Design the REST API endpoints with pagination and versioning", ProjectDomains: []string{"api"}}, "api-review", nil},
	}
	for _, tt := range tests {
		t.Run(tt.first, func(t *testing.T) {
			t.Parallel()
			ms := lib.Match(tt.task)
			if len(ms) == 0 || ms[0].Skill.ID != tt.first {
				t.Fatalf("picked %v, want %s first", IDs(ms), tt.first)
			}
			limit, _ := MaxSkills(NormalizeComplexity(tt.task.Complexity))
			if len(ms) > limit {
				t.Fatalf("picked %d skills, limit %d", len(ms), limit)
			}
			for _, n := range tt.not {
				for _, m := range ms {
					if m.Skill.ID == n {
						t.Fatalf("picked %s (same category as %s): %v", n, tt.first, IDs(ms))
					}
				}
			}
		})
	}
}

func TestMatchNilLibrary(t *testing.T) {
	t.Parallel()
	var lib *Library
	if got := lib.Match(TaskInfo{Type: "testing", Complexity: "easy"}); got != nil {
		t.Fatalf("a nil library matched %v", got)
	}
}

func TestPromptSection(t *testing.T) {
	t.Parallel()
	if got := PromptSection(nil); got != "" {
		t.Fatalf("no matches gave %q", got)
	}
	ms := []Match{
		{Skill: Skill{ID: "a", Name: "Alpha", Body: "Do A.\n"}},
		{Skill: Skill{ID: "b", Name: "Beta", Body: "  Do B.  "}},
	}
	want := "## Your Skills\nApply the guidance of these skills to your task.\n\n---\n### Skill: Alpha (a)\n\nDo A.\n\n---\n### Skill: Beta (b)\n\nDo B.\n---\n"
	if got := PromptSection(ms); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
