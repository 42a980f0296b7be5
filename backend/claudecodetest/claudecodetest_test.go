package claudecodetest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestBinaryIsThePinnedVersion(t *testing.T) {
	path := Binary(t)
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); len(got) == 0 || got[0] != Version {
		t.Fatalf("claude --version = %q, want %s", out, Version)
	}
	pkg, err := os.ReadFile(Root() + "/tools/claude-code/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pkg), `"@anthropic-ai/claude-code": "`+Version+`"`) {
		t.Fatalf("tools/claude-code/package.json does not pin %s exactly:\n%s", Version, pkg)
	}
}

func TestEnvKeepsTheCLIAwayFromRealAccounts(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-real")
	t.Setenv("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
	t.Setenv("CLAUDE_CODE_USE_BEDROCK", "1")
	t.Setenv("HOME", "/home/someone")
	env := Env("/tmp/h", "http://127.0.0.1:9", "EXTRA=1")
	got := map[string][]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = append(got[k], v)
	}
	want := map[string]string{
		"HOME": "/tmp/h", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "EXTRA": "1",
	}
	for k, v := range want {
		if len(got[k]) != 1 || got[k][0] != v {
			t.Errorf("%s = %q, want exactly [%q]", k, got[k], v)
		}
	}
	if _, ok := got["CLAUDE_CODE_USE_BEDROCK"]; ok {
		t.Error("CLAUDE_CODE_USE_BEDROCK leaked into the CLI's environment")
	}
	if len(got["PATH"]) != 1 {
		t.Errorf("PATH = %q, want the test's PATH", got["PATH"])
	}
}

func TestNormalize(t *testing.T) {
	project, home := "/tmp/TestX123/001/project", "/tmp/TestX123/002"
	a := []byte(`{"uuid":"0b5c8f1e-1111-4222-8333-444455556666","cwd":"/tmp/TestX123/001/project","timestamp":"2026-11-24T14:12:02.069Z","id":"msg_abcdefABCDEF123456"}` + "\n" +
		`{"path":"/tmp/TestX123/002/.claude/projects/-tmp-TestX123-001-project/memory/","err":"gateway (127.0.0.1:36385)"}`)
	b := []byte(`{"parentUuid":"0b5c8f1e-1111-4222-8333-444455556666","uuid":"9b5c8f1e-1111-4222-8333-444455556666","timestamp":"2026-11-24T14:12:03.569Z","message":{"id":"msg_abcdefABCDEF123456"}}`)
	out := Normalize(project, home, "http://127.0.0.1:36385", a, b)
	wantA := `{"uuid":"00000000-0000-4000-8000-000000000001","cwd":"/tmp/baton-recording/project","timestamp":"2026-01-01T00:00:00.000Z","id":"msg_000000000000000000000001"}` + "\n" +
		`{"path":"/tmp/baton-recording/home/.claude/projects/-tmp-baton-recording-project/memory/","err":"gateway (127.0.0.1:40000)"}`
	wantB := `{"parentUuid":"00000000-0000-4000-8000-000000000001","uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-01-01T00:00:00.100Z","message":{"id":"msg_000000000000000000000001"}}`
	if string(out[0]) != wantA {
		t.Errorf("got\n%s\nwant\n%s", out[0], wantA)
	}
	if string(out[1]) != wantB {
		t.Errorf("got\n%s\nwant\n%s", out[1], wantB)
	}
}
