package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectProject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		files   map[string]string
		domains string
	}{
		{map[string]string{"go.mod": "module x\n"}, "backend,go"},
		{map[string]string{"package.json": `{"name": "site"}`}, "javascript,web"},
		{map[string]string{"package.json": `{"dependencies": {"react": "18"}}`, "tsconfig.json": "{}"}, "frontend,javascript,react,typescript,web"},
		{map[string]string{"pyproject.toml": ""}, "backend,python"},
		{map[string]string{"README.md": "hi"}, ""},
	} {
		dir := t.TempDir()
		for name, content := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "internal"), 0o755); err != nil {
			t.Fatal(err)
		}
		p := DetectProject(dir)
		if got := strings.Join(p.Domains, ","); got != tc.domains {
			t.Errorf("%v: domains %q, want %q", tc.files, got, tc.domains)
		}
		if s := p.Summary(); !strings.Contains(s, "internal/") {
			t.Errorf("%v: summary %q names no folder", tc.files, s)
		}
	}
}
