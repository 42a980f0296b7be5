package hosts

import (
	"os/exec"
	"strings"
	"testing"
)

// The host packages link only what they need (issue 23): the session
// contract, not the engine or the store; the Desktop adapter not the
// simulator it is tested against (the Simulator kind joins them here); the
// CLI host no SQLite.
func TestHostPackagesLinkNoEngine(t *testing.T) {
	t.Parallel()
	for pkg, banned := range map[string][]string{
		"../claude":     {"/backend/engine", "/backend/store", "/backend/simulator", "sqlite"},
		"../claudecode": {"/backend/engine", "/backend/store", "/backend/simulator", "sqlite"},
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		if !strings.Contains(string(out), "/backend/session\n") {
			t.Fatalf("go list -deps %s printed no session contract: %s", pkg, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, b := range banned {
				if strings.Contains(dep, b) {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}
