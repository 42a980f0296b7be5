package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOpenMissingFileGivesDefaults(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "settings.json"))
	if err := s.Problem(); err != nil {
		t.Fatalf("Problem() = %v, want nil", err)
	}
	if got := s.Get(); !reflect.DeepEqual(got, Defaults()) {
		t.Fatalf("Get() = %+v, want defaults %+v", got, Defaults())
	}
	if err := Defaults().Validate(); err != nil {
		t.Fatalf("the defaults do not validate: %v", err)
	}
}

func TestSaveRoundTripKeepsUnknownKeysAndMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "baton", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"host":"desktop","futureFeature":{"on":true},"pollIntervalMs":500}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := Open(path)
	if err := s.Problem(); err != nil {
		t.Fatalf("Problem() = %v", err)
	}
	got := s.Get()
	if got.Host != HostDesktop || got.PollIntervalMs != 500 || !got.Notifications {
		t.Fatalf("Get() = %+v: want host desktop, 500 ms, and the default notifications on", got)
	}
	got.Headless = false
	got.ChromePath = "/opt/chrome"
	if err := s.Save(got); err != nil {
		t.Fatalf("Save: %v", err)
	}
	var onDisk map[string]json.RawMessage
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &onDisk); err != nil {
		t.Fatalf("saved file is not JSON: %v\n%s", err, data)
	}
	if string(onDisk["futureFeature"]) != `{"on":true}` && !strings.Contains(string(onDisk["futureFeature"]), `"on": true`) {
		t.Fatalf("unknown key lost or changed: %s", onDisk["futureFeature"])
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", info.Mode().Perm())
	}
	again := Open(path).Get()
	if !reflect.DeepEqual(again, got) {
		t.Fatalf("reopened = %+v, want %+v", again, got)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only settings.json (no temporary files left)", len(entries))
	}
}

// knownHosts is a Check as the host registry gives one (backend/hosts
// tests the real one): the settings apply it when they load and save.
func knownHosts(s Settings) error {
	if s.Host != HostSimulator && s.Host != HostDesktop && s.Host != HostClaudeCode {
		return fmt.Errorf("%w: host must be \"simulator\", \"desktop\" or \"claude-code\", not %q", ErrInvalid, s.Host)
	}
	return nil
}

func TestBrokenFileIsReportedAndLeftAlone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"invalid JSON", "{\n  \"host\": \"desktop\",\n}", "line 3"},
		{"wrong type", `{"pollIntervalMs":"fast"}`, "wrong type"},
		{"unusable value", `{"host":"cloud"}`, `host must be "simulator", "desktop" or "claude-code"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "settings.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := Open(path, knownHosts)
			err := s.Problem()
			if !errors.Is(err, ErrBroken) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Problem() = %v, want ErrBroken mentioning %q", err, tt.want)
			}
			if !reflect.DeepEqual(s.Get(), Defaults()) {
				t.Fatalf("a broken file must give the defaults, got %+v", s.Get())
			}
			next := Defaults()
			next.Headless = false
			if err := s.Save(next); !errors.Is(err, ErrBroken) {
				t.Fatalf("Save over a broken file = %v, want ErrBroken", err)
			}
			if data, _ := os.ReadFile(path); string(data) != tt.content {
				t.Fatalf("broken file changed to %q", data)
			}
			if _, err := s.Reset(); err != nil {
				t.Fatalf("Reset: %v", err)
			}
			if kept, _ := os.ReadFile(path + ".broken"); string(kept) != tt.content {
				t.Fatalf("Reset did not keep the broken file as settings.json.broken: %q", kept)
			}
			if s.Problem() != nil {
				t.Fatalf("Problem() after Reset = %v", s.Problem())
			}
			if err := s.Save(next); err != nil {
				t.Fatalf("Save after Reset: %v", err)
			}
		})
	}
}

func TestInvalidSettingsAreRefusedAndNothingChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Settings)
		want   string
	}{
		{"unknown host", func(s *Settings) { s.Host = "cloud" }, "host must be"},
		{"no host", func(s *Settings) { s.Host = "" }, "no session host"},
		{"endpoint not a URL", func(s *Settings) { s.CDPEndpoint = "localhost9222" }, "CDP endpoint must be a URL"},
		{"poll interval too short", func(s *Settings) { s.PollIntervalMs = 10 }, "between 100 and 60000"},
		{"unknown theme", func(s *Settings) { s.Theme = "sepia" }, "theme must be"},
		{"too many recent folders", func(s *Settings) { s.RecentFolders = make([]string, MaxRecentFolders+1) }, "at most 10"},
		{"a permission rule that does not parse", func(s *Settings) { s.Permissions.Deny = []string{"Bash(rm:*)", "rm -rf"} }, `"rm -rf"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "settings.json")
			s := Open(path, knownHosts)
			if err := s.Save(Defaults()); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			got, err := s.Update(tt.change)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Update() error = %v, want ErrInvalid mentioning %q", err, tt.want)
			}
			if !reflect.DeepEqual(got, Defaults()) || !reflect.DeepEqual(s.Get(), Defaults()) {
				t.Fatalf("settings in force changed after a refused update: %+v", s.Get())
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Fatalf("file changed after a refused update:\n%s", after)
			}
		})
	}
}

func TestAddRecentFolder(t *testing.T) {
	t.Parallel()
	s := Open(filepath.Join(t.TempDir(), "settings.json"))
	for _, d := range []string{"/a", "/b", "/a"} {
		if _, err := s.AddRecentFolder(d); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Get().RecentFolders; !reflect.DeepEqual(got, []string{"/a", "/b"}) {
		t.Fatalf("RecentFolders = %v, want [/a /b]", got)
	}
	for i := range 15 {
		if _, err := s.AddRecentFolder(filepath.Join("/p", string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	got := s.Get().RecentFolders
	if len(got) != MaxRecentFolders || got[0] != "/p/o" {
		t.Fatalf("RecentFolders = %v, want %d entries with the newest first", got, MaxRecentFolders)
	}
}
