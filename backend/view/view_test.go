package view

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/store"
)

// fill sets every exported field of the value v points to, recursively, to
// something that is not its zero value, so that a field the view forgets
// shows up in the JSON comparison.
func fill(t *testing.T, v reflect.Value, depth int) {
	t.Helper()
	if depth > 4 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s-" + v.Type().Name())
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(any("v")))
		v.Set(m)
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"x":1}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, s.Index(0), depth+1)
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), depth+1)
			}
		}
	}
}

func sameJSON(t *testing.T, what string, row, view any) {
	t.Helper()
	a, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("%s: the view's JSON differs from the row's:\nrow:  %s\nview: %s", what, a, b)
	}
}

// The views keep every JSON field of what they replace, with the same
// names: the frontend reads them unchanged.
func TestViewsKeepTheFrontendsJSON(t *testing.T) {
	t.Parallel()
	var snap engine.Snapshot
	fill(t, reflect.ValueOf(&snap).Elem(), 0)
	snap.FinalReport = nil // the engine's own type, passed through
	sameJSON(t, "snapshot", snap, SnapshotOf(snap))
	var page store.Page
	fill(t, reflect.ValueOf(&page).Elem(), 0)
	sameJSON(t, "history page", page, HistoryPageOf(page))
	sameJSON(t, "no runs", []store.Run(nil), RunsOf(nil))
	var empty store.Worker
	sameJSON(t, "worker without a prompt", empty, WorkerOf(empty))
}

// The window sees why a run is completed with issues, and an empty list
// (not null) for a run without any.
func TestRunOfCarriesTheIssues(t *testing.T) {
	t.Parallel()
	v := RunOf(store.Run{ID: "orch_1", Status: "completed_with_issues", Issues: []string{"1 conflict is still open: x."}})
	if len(v.Issues) != 1 || v.Issues[0] != "1 conflict is still open: x." || v.Status != "completed_with_issues" {
		t.Errorf("view = %+v", v)
	}
	if v := RunOf(store.Run{ID: "orch_2"}); v.Issues == nil {
		t.Error("a run without issues has nil issues")
	}
}
