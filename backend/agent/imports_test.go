package agent

import (
	"go/build"
	"strings"
	"testing"
)

// TestImportsTheStandardLibraryOnly: the agent is a leaf; its stand-ins
// import it, and it imports nothing of Baton's and nothing from outside
// the standard library (no browser code reaches model-sim through it).
func TestImportsTheStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 {
		t.Fatal("no imports read")
	}
	for _, p := range pkg.Imports {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("the agent imports %s, outside the standard library", p)
		}
	}
}
