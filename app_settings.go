package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/baton-app/baton/backend/claude"
	"github.com/baton-app/baton/backend/settings"
	"github.com/baton-app/baton/backend/view"
)

// settingsView is what the Settings view shows: the settings in force, why
// settings.json could not be used, and what the program kinds find.
func (a *App) settingsView() view.SettingsView {
	s := a.Settings.Get()
	v := view.SettingsView{Settings: view.SettingsOf(s), Path: a.Settings.Path(), StartAdvice: claude.StartAdvice(runtime.GOOS, "9222")}
	if err := a.Settings.Problem(); err != nil {
		v.Problem = err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v.Programs = view.HostProgramsOf(a.Hosts.Kinds().Programs(ctx, s))
	return v
}

// GetSettings returns the settings in force.
func (a *App) GetSettings() view.SettingsView {
	return a.settingsView()
}

// HostKinds returns the kinds of session host the settings can choose, in
// the order Settings lists them, with the settings each one reads.
func (a *App) HostKinds() []view.HostKind {
	return view.HostKindsOf(a.Hosts.Kinds().Kinds())
}

// SaveSettings checks and stores the settings, then applies them to the
// session host connection.
func (a *App) SaveSettings(form view.Settings) (view.SettingsView, error) {
	s := view.FileSettings(form)
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
func (a *App) ResetSettings() (view.SettingsView, error) {
	if _, err := a.Settings.Reset(); err != nil {
		return a.settingsView(), errors.New("Baton could not reset your settings: " + err.Error() + ".")
	}
	a.applySettings()
	return a.settingsView(), nil
}

// TestConnection runs the host test for the settings as the form holds
// them and returns its report.
func (a *App) TestConnection(form view.Settings) (view.DoctorReport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	r, err := a.TestHost(ctx, view.FileSettings(form))
	switch {
	case errors.Is(err, settings.ErrInvalid):
		return view.DoctorReport{}, invalidSetting(err)
	case err != nil:
		return view.DoctorReport{}, errors.New(sentence(err.Error()))
	}
	return view.DoctorReportOf(r), nil
}

// HostStatus returns the state of the connection to the session host.
func (a *App) HostStatus() view.HostStatus {
	return view.HostStatusOf(a.Hosts.Status())
}

// invalidSetting turns a settings.ErrInvalid error into a sentence.
func invalidSetting(err error) error {
	msg := strings.TrimPrefix(err.Error(), settings.ErrInvalid.Error()+": ")
	return errors.New(sentence(msg))
}
