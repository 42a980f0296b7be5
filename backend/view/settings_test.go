package view

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/settings"
)

// The settings, the host test's report, the connection's state and the
// build's info keep every JSON field the frontend reads, with the same
// names; the settings the window sends reach the settings package whole.
func TestSettingsViewsKeepTheJSON(t *testing.T) {
	t.Parallel()
	s := filled[settings.Settings](t)
	sameJSON(t, "settings", s, SettingsOf(s))
	if back := FileSettings(SettingsOf(s)); !reflect.DeepEqual(back, s) {
		t.Errorf("settings changed on the way through the view:\nwas: %+v\nnow: %+v", s, back)
	}
	sent := filled[Settings](t)
	sameJSON(t, "settings sent", sent, FileSettings(sent))
	r := filled[doctor.Report](t)
	sameJSON(t, "doctor report", r, DoctorReportOf(r))
	sameJSON(t, "empty doctor report", doctor.Report{}, DoctorReportOf(doctor.Report{}))
	st := filled[hosts.Status](t)
	sameJSON(t, "host status", st, HostStatusOf(st))
	info := filled[desktop.Info](t)
	sameJSON(t, "app info", info, AppInfoOf(info))
}

// A host kind shows its name, label, description and fields, and what a
// program kind found reaches Settings whole. hosts.Info and hosts.Found
// have no JSON of their own, so every field is matched by name: a field
// added to either must be shown here or named as left out.
func TestHostKindsAndProgramsAreShownWhole(t *testing.T) {
	t.Parallel()
	info := filled[hosts.Info](t)
	kinds := HostKindsOf([]hosts.Kind{infoKind{info}, infoKind{hosts.Info{Name: "bare", Label: "Bare"}}})
	if len(kinds) != 2 {
		t.Fatalf("HostKindsOf = %+v", kinds)
	}
	// Short is the terminal's spelling; Simulated and SystemPrompt are the
	// engine's business.
	sameFields(t, "host kind", info, kinds[0], "Short", "Simulated", "SystemPrompt")
	if kinds[1].Fields == nil {
		t.Error("a kind without fields has null fields")
	}
	found := filled[hosts.Found](t)
	programs := HostProgramsOf([]hosts.Found{found})
	if len(programs) != 1 {
		t.Fatalf("HostProgramsOf = %+v", programs)
	}
	sameFields(t, "host program", found, programs[0])
	if HostProgramsOf(nil) == nil {
		t.Error("no programs is null")
	}
}

// sameFields checks that every exported field of from, but those in skip,
// has a field of the same name and printed value in to.
func sameFields(t *testing.T, what string, from, to any, skip ...string) {
	t.Helper()
	fv, tv := reflect.ValueOf(from), reflect.ValueOf(to)
	for i := range fv.NumField() {
		f := fv.Type().Field(i)
		if !f.IsExported() || slices.Contains(skip, f.Name) {
			continue
		}
		g := tv.FieldByName(f.Name)
		if !g.IsValid() {
			t.Errorf("%s: %T has no field %s of %T", what, to, f.Name, from)
			continue
		}
		if a, b := fmt.Sprint(fv.Field(i)), fmt.Sprint(g); a != b {
			t.Errorf("%s: %s is %s, want %s", what, f.Name, b, a)
		}
	}
}

// infoKind is a host kind that only says what it is.
type infoKind struct{ info hosts.Info }

func (k infoKind) Info() hosts.Info { return k.info }
func (infoKind) Open(context.Context, settings.Settings, hosts.Env) (hosts.Conn, error) {
	return nil, hosts.ErrNotInUse
}
func (infoKind) Diagnose(context.Context, settings.Settings, hosts.InUse) doctor.Report {
	return doctor.Report{}
}
func (infoKind) Describe(hosts.Status) string { return "" }
