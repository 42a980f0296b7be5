package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
)

// SettingsView is what the Settings view shows: the settings in force, and
// why settings.json could not be used, if it could not.
type SettingsView struct {
	Settings settings.Settings `json:"settings"`
	Path     string            `json:"path"`
	Problem  string            `json:"problem,omitempty"`
	// StartAdvice says how to start Claude Desktop with its DevTools port on
	// this platform.
	StartAdvice string `json:"startAdvice"`
	// ClaudeFound is the Claude Code CLI found on PATH while another host is
	// in use: Settings offers it.
	ClaudeFound string `json:"claudeFound,omitempty"`
	// ClaudeVersion is the version of the CLI the Claude Code host runs
	// (when it is the host in use); ClaudeProblem why it cannot be used.
	ClaudeVersion string `json:"claudeVersion,omitempty"`
	ClaudeProblem string `json:"claudeProblem,omitempty"`
}

func (a *App) settingsView() SettingsView {
	v := SettingsView{Settings: a.Settings.Get(), Path: a.Settings.Path(), StartAdvice: claude.StartAdvice(runtime.GOOS, "9222")}
	if err := a.Settings.Problem(); err != nil {
		v.Problem = err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The one program kind is the Claude Code CLI.
	for _, f := range a.Hosts.Kinds().Programs(ctx, v.Settings) {
		if f.InUse {
			v.ClaudeVersion, v.ClaudeProblem = f.Version, f.Problem
		} else if f.Path != "" {
			v.ClaudeFound = f.Path
		}
	}
	return v
}

// GetSettings returns the settings in force.
func (a *App) GetSettings() SettingsView {
	return a.settingsView()
}

// SaveSettings checks and stores s, then applies it to the session host
// connection.
func (a *App) SaveSettings(s settings.Settings) (SettingsView, error) {
	if a.Runs.Busy() && a.Hosts.ConnectionChanged(a.Settings.Get(), s) {
		return a.settingsView(), errors.New("Runs are active on the current session host: let them finish or cancel them before changing how Baton connects.")
	}
	if err := a.Settings.Save(s); err != nil {
		switch {
		case errors.Is(err, settings.ErrInvalid):
			return a.settingsView(), invalidSetting(err)
		case errors.Is(err, settings.ErrBroken):
			return a.settingsView(), errors.New("Your settings file could not be read, so Baton does not overwrite it: fix it by hand or use \"Reset to defaults\", which keeps a copy.")
		}
		slog.Error("save settings", "component", "app", "err", err)
		return a.settingsView(), errors.New("Baton could not write your settings file: " + err.Error() + ".")
	}
	a.applySettings()
	return a.settingsView(), nil
}

// applySettings hands saved settings to the services that follow them.
func (a *App) applySettings() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := a.Apply(ctx); err != nil {
		slog.Warn("close the previous session host", "component", "app", "err", err)
	}
}

// ResetSettings keeps a broken settings file as settings.json.broken and
// goes back to the defaults.
func (a *App) ResetSettings() (SettingsView, error) {
	if _, err := a.Settings.Reset(); err != nil {
		return a.settingsView(), errors.New("Baton could not reset your settings: " + err.Error() + ".")
	}
	a.applySettings()
	return a.settingsView(), nil
}

// TestConnection runs the host test for s (as the form holds it) and
// returns its report.
func (a *App) TestConnection(s settings.Settings) (doctor.Report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := a.TestHost(ctx, s)
	switch {
	case errors.Is(err, settings.ErrInvalid):
		return doctor.Report{}, invalidSetting(err)
	case err != nil:
		return doctor.Report{}, errors.New(sentence(err.Error()))
	}
	return r, nil
}

// HostStatus returns the state of the connection to the session host.
func (a *App) HostStatus() hosts.Status {
	return a.Hosts.Status()
}

// invalidSetting turns a settings.ErrInvalid error into a sentence.
func invalidSetting(err error) error {
	msg := strings.TrimPrefix(err.Error(), settings.ErrInvalid.Error()+": ")
	return errors.New(sentence(msg))
}
