package main

import (
	"context"
	"errors"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/template"
	"github.com/baton-app/baton/backend/view"
)

// Services are the backend services the bindings delegate to; main.go takes
// them from backend/service.
type Services struct {
	Info      desktop.Info
	Smoke     *desktop.StartupCheck
	Templates *template.Manager
	Settings  *settings.Store
	Hosts     *hosts.Manager
	// Runs are the use cases on runs (backend/service); the bindings reach
	// the engine and the store only through them.
	Runs  *service.Runs
	Files *desktop.FileManager
	// Apply hands saved settings to the services that follow them (the
	// notification switch, the session host connection).
	Apply func(context.Context) error
	// TestHost is the host test (service.Services.TestHost).
	TestHost func(context.Context, settings.Settings) (doctor.Report, error)
	// Remote is Settings → Remote access (nil: not available).
	Remote RemoteAccess
	// Machines is Settings → Machines (nil: not available).
	Machines *service.Machines
}

// App holds the Wails bindings. Each method checks its input, makes one call
// into backend/ and turns an error into a sentence for the user; no logic
// lives here that a backend test could not reach. Bindings of one domain
// live in app_<domain>.go.
type App struct {
	ctx context.Context
	Services
}

// NewApp returns the binding object.
func NewApp(s Services) *App {
	return &App{Services: s}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
}

// Ready is called by the page once it has mounted. It returns what the
// window shows about this build.
func (a *App) Ready() view.AppInfo {
	if a.Smoke != nil {
		a.Smoke.Ready()
	}
	return view.AppInfoOf(a.Info)
}

// ChooseFolder opens the native folder dialog and returns the chosen folder,
// or "" when the user cancelled.
func (a *App) ChooseFolder(title string) (string, error) {
	if a.ctx == nil {
		return "", errors.New("A browser has no folder dialog for Baton's machine: type the folder's path.")
	}
	if title == "" {
		title = "Choose a project folder"
	}
	dir, err := wailsruntime.OpenDirectoryDialog(a.ctx, wailsruntime.OpenDialogOptions{Title: title, CanCreateDirectories: true})
	if err != nil {
		return "", errors.New("Baton could not open the folder dialog: " + err.Error() + ".")
	}
	return dir, nil
}
