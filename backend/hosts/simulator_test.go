package hosts

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/simulator"
	"github.com/baton-app/baton/backend/testsupport"
)

// TestStartSimulator runs the in-process simulator host (its own server and
// browser, as "baton sim" does) and drives a session through it: the
// agent answers the phase it is asked for; closing the adapter stops the
// simulator and its browser. The console's TestDoctorFindsTheSimulator
// runs "baton doctor" against it.
func TestStartSimulator(t *testing.T) {
	testsupport.NeedChromium(t)
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	h, in, err := StartSimulator(ctx, simulator.InstanceOptions{
		Simulator:  simulator.Options{Speed: 200, Logger: quiet},
		ChromePath: "/usr/bin/chromium",
	}, claude.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	profile := in.Browser.ProfileDir()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := h.Start(ctx, session.StartOptions{Cwd: dir, Message: `answer with "phase": "analysis"`})
	if err != nil {
		t.Fatal(err)
	}
	var transcript []byte
	for {
		info, err := h.Session(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, err := h.Read(ctx, id, session.Cursor{})
		if err != nil {
			t.Fatal(err)
		}
		var last struct{ Type string }
		if n := len(b.Entries); !info.TurnRunning && n > 0 && json.Unmarshal(b.Entries[n-1], &last) == nil && last.Type == "result" {
			transcript, _ = json.Marshal(b.Entries)
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the session's turn did not end: %+v", info)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(string(transcript), `\"phase\": \"analysis\"`) {
		t.Fatalf("no analysis answer in the transcript: %s", transcript)
	}

	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	if err := h.Close(sctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Fatalf("the simulator's temporary profile %s was left behind (%v)", profile, err)
	}
}
