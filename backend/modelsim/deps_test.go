package modelsim

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLinksNoBrowserCode: model-sim answers with the scripted agent
// (backend/agent) and links none of the browser code that the Desktop
// stand-in needs: no chromedp, no cdproto, neither backend/chrome nor
// backend/simulator.
func TestLinksNoBrowserCode(t *testing.T) {
	t.Parallel()
	// go test puts the go command of its GOROOT first on PATH.
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/baton-app/baton/backend/agent") {
		t.Fatalf("go list -deps did not list the agent package; it printed:\n%s", out)
	}
	for _, d := range deps {
		if strings.Contains(d, "chromedp") || strings.Contains(d, "cdproto") ||
			d == "github.com/baton-app/baton/backend/chrome" || d == "github.com/baton-app/baton/backend/simulator" {
			t.Errorf("model-sim links %s", d)
		}
	}
}
