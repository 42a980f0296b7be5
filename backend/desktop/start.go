package desktop

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"time"
)

// SmokeTimeout is how long BATON_SMOKE=1 waits for the page to call a
// binding (BATON_SMOKE_TIMEOUT overrides it, so the failure path can be
// tested).
const SmokeTimeout = 30 * time.Second

// StartupCheckFromEnv returns the start-up check that BATON_SMOKE and
// BATON_SMOKE_TIMEOUT ask for.
func StartupCheckFromEnv(getenv func(string) string) *StartupCheck {
	timeout := SmokeTimeout
	if v := getenv("BATON_SMOKE_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			timeout = d
		}
	}
	return NewStartupCheck(getenv("BATON_SMOKE") == "1", timeout)
}

// Messages of CheckWindow, printed as they are.
var (
	errNeedsDisplay = errors.New("Baton needs a desktop session to open its window, and neither DISPLAY nor WAYLAND_DISPLAY is set: run it from a desktop session, or run \"baton help\" for the commands that need no window.")
	errNoFrontend   = errors.New("baton: this binary was built without its frontend; build it with \"make build\".")
)

// CheckWindow says, in a sentence for the terminal, why the window cannot
// open: no display, or a binary built without its frontend (dist holds the
// built frontend).
func CheckWindow(dist fs.FS) error {
	if err := CheckDisplay(runtime.GOOS, os.Getenv); err != nil {
		return errNeedsDisplay
	}
	if _, err := fs.Stat(dist, "index.html"); err != nil {
		return errNoFrontend
	}
	return nil
}
