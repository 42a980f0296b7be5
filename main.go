// Command baton is the Baton desktop application: it runs one large request
// as many Claude Code sessions in parallel. With no arguments it opens the
// window; with a subcommand (see backend/console) it runs headless. This
// file only wires: the services come from backend/service, the window's
// life cycle is window.go, the bindings are app*.go.
package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/baton-app/baton/backend/console"
	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/service"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	if len(os.Args) > 1 {
		os.Exit(console.Main(os.Args[1:], console.Build{Version: version, Commit: commit, Date: buildDate}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runGUI())
}

// runGUI opens the window and returns the process exit code.
func runGUI() int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		fmt.Fprintln(os.Stderr, "baton: the embedded frontend is missing:", err)
		return 1
	}
	if err := desktop.CheckWindow(dist); err != nil && !generatingBindings {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	win := newWindow(logger, icon, desktop.StartupCheckFromEnv(os.Getenv))
	svc, err := service.Open(service.Options{Logger: logger, Desktop: true, OnNotificationClick: win.openRun})
	if err != nil {
		fmt.Fprintln(os.Stderr, openFailure(err))
		return 1
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			logger.Warn("stop the services", "component", "main", "err", err)
		}
	}()
	app := NewApp(Services{
		Info:      desktop.Info{Version: version, Commit: commit, BuildDate: buildDate, Platform: runtime.GOOS + "/" + runtime.GOARCH},
		Smoke:     win.smoke,
		Templates: svc.Templates,
		Settings:  svc.Settings,
		Hosts:     svc.Hosts,
		Runs:      svc.Runs,
		Files:     win.files,
		Apply:     svc.ApplySettings,
		TestHost:  svc.TestHost,
	})
	return win.run(dist, svc, app)
}
