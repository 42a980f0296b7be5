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
	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/service"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	if len(os.Args) > 1 {
		dist, _ := fs.Sub(assets, "frontend/dist")
		b := console.Build{Version: version, Commit: commit, Date: buildDate, Frontend: dist, Bindings: browserBindings}
		os.Exit(console.Main(os.Args[1:], b, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runGUI())
}

// appServices are the bindings' services taken from svc; the window adds
// its own (the startup check, the file manager).
func appServices(svc *service.Services) Services {
	return Services{
		Info:      desktop.Info{Version: version, Commit: commit, BuildDate: buildDate, Platform: runtime.GOOS + "/" + runtime.GOARCH},
		Templates: svc.Templates,
		Settings:  svc.Settings,
		Hosts:     svc.Hosts,
		Runs:      svc.Runs,
		Apply:     svc.ApplySettings,
		TestHost:  svc.TestHost,
		Machines:  svc.Machines,
	}
}

// browserBindings is the binding object "baton serve" gives browsers: the
// window's bindings over svc, without a window.
func browserBindings(svc *service.Services, access *remote.Access) any {
	s := appServices(svc)
	s.Remote = access
	return NewApp(s).forBrowser()
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
	svc, err := service.Open(service.Options{Logger: logger, Desktop: true, OnNotificationClick: win.openRun, OnInboxClick: win.openInbox})
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
	s := appServices(svc)
	s.Smoke, s.Files = win.smoke, win.files
	// Settings → Remote access serves the same bindings to browsers.
	if dir, err := remote.DefaultDir(); err != nil {
		logger.Warn("no remote access", "component", "main", "err", err)
	} else if access, err := remote.NewAccess(remote.AccessOptions{Dir: dir, Assets: dist, Logger: logger}); err != nil {
		logger.Warn("no remote access", "component", "main", "err", err)
	} else {
		s.Remote, win.remote = access, access
	}
	app := NewApp(s)
	if win.remote != nil {
		bindings, err := remote.NewBindings(app.forBrowser())
		if err != nil {
			fmt.Fprintln(os.Stderr, "baton: the bindings cannot be served:", err)
			return 1
		}
		win.remote.Serve(bindings)
	}
	return win.run(dist, svc, app)
}
