package view

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/baton-app/baton/backend/engine"
	"github.com/baton-app/baton/backend/runstatus"
	"github.com/baton-app/baton/backend/store"
)

// fill sets every exported field of the value v points to, recursively, to
// something that is not its zero value, so that a field the view forgets
// shows up in the JSON comparison.
func fill(t *testing.T, v reflect.Value, depth int) {
	t.Helper()
	if depth > 8 {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s-" + v.Type().Name())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(t, e, depth+1)
		m.SetMapIndex(reflect.ValueOf("k").Convert(v.Type().Key()), e)
		v.Set(m)
	case reflect.Interface:
		if v.Type().NumMethod() == 0 {
			v.Set(reflect.ValueOf("v"))
		}
	default:
		t.Fatalf("fill cannot set a %v", v.Type())
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

// filled is a T with every exported field set by fill.
func filled[T any](t *testing.T) T {
	t.Helper()
	var v T
	fill(t, reflect.ValueOf(&v).Elem(), 0)
	return v
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
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, y) {
		t.Errorf("%s: the view's JSON differs from the row's:\nrow:  %s\nview: %s", what, a, b)
	}
}

// The views keep every JSON field of what they replace, with the same
// names: the frontend reads them unchanged.
func TestViewsKeepTheFrontendsJSON(t *testing.T) {
	t.Parallel()
	var snap engine.Snapshot
	fill(t, reflect.ValueOf(&snap).Elem(), 0)
	v := SnapshotOf(snap)
	if v.UserReviews {
		t.Error("UserReviews is set for a template that names no reviewer")
	}
	sameJSON(t, "snapshot", snap, without{v, "userReviews"}) // the engine reads the reviewer from the template
	var rep engine.FinalReport
	fill(t, reflect.ValueOf(&rep).Elem(), 0)
	sameJSON(t, "final report", rep, FinalReportOf(rep))
	var p engine.Payload
	fill(t, reflect.ValueOf(&p).Elem(), 0)
	e, ok := EventOf(engine.EventWorkerProgress, p)
	if !ok || e.Name != engine.EventWorkerProgress {
		t.Fatalf("EventOf = %+v, %v", e, ok)
	}
	sameJSON(t, "event", p, without{e, "name"}) // the payload travels beside its name
	if _, ok := EventOf("inbox:changed", struct{}{}); ok {
		t.Error("EventOf took a payload that is not the engine's")
	}
	var page store.Page
	fill(t, reflect.ValueOf(&page).Elem(), 0)
	sameJSON(t, "history page", page, HistoryPageOf(page))
	sameJSON(t, "no runs", []store.Run(nil), RunsOf(nil))
	var empty store.Worker
	sameJSON(t, "worker without a prompt", empty, WorkerOf(empty))
}

// without marshals v without one of its keys: a field the value it is
// compared with does not have.
type without struct {
	v   any
	key string
}

func (w without) MarshalJSON() ([]byte, error) {
	var m map[string]json.RawMessage
	b, err := json.Marshal(w.v)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		return nil, err
	}
	delete(m, w.key)
	return json.Marshal(m)
}

// What the faces send reaches the engine and the store whole: every field
// of the engine's request, filled, makes the same JSON after a trip through
// the view.
func TestRequestsReachTheEngineWhole(t *testing.T) {
	t.Parallel()
	var req engine.CreateRequest
	fill(t, reflect.ValueOf(&req).Elem(), 0)
	var vreq CreateRequest
	roundTrip(t, req, &vreq)
	sameJSON(t, "create request", req, EngineRequest(vreq))
	var mods engine.Modifications
	fill(t, reflect.ValueOf(&mods).Elem(), 0)
	var vmods Modifications
	roundTrip(t, mods, &vmods)
	sameJSON(t, "modifications", mods, EngineModifications(vmods))
	var q store.HistoryQuery
	fill(t, reflect.ValueOf(&q).Elem(), 0)
	var vq HistoryQuery
	roundTrip(t, q, &vq)
	sameJSON(t, "history query", q, StoreQuery(vq))
	if got := EngineRequest(CreateRequest{TemplateID: "x"}); got.Overrides != nil {
		t.Errorf("a request without overrides got %+v", got.Overrides)
	}
}

// roundTrip decodes the JSON of from into to.
func roundTrip(t *testing.T, from, to any) {
	t.Helper()
	b, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, to); err != nil {
		t.Fatal(err)
	}
}

// The status names are the store's, and Finished agrees with it.
func TestStatusNamesAreTheStores(t *testing.T) {
	t.Parallel()
	runs := []string{RunCreated, RunAnalyzing, RunPlanning, RunConfirming, RunSpawning, RunRunning, RunAggregating,
		RunVerifying, RunCompleted, RunPaused, RunCancelled, RunError, RunInterrupted, RunCompletedWithIssues, RunFailed}
	if want := store.RunStatusNames(); !reflect.DeepEqual(runs, want) {
		t.Errorf("run statuses %v, the store's %v", runs, want)
	}
	workers := []string{WorkerPending, WorkerSpawning, WorkerRunning, WorkerPaused, WorkerCompleted, WorkerFailed,
		WorkerTimeout, WorkerCancelled, WorkerAwaitingReview, WorkerRejected}
	if want := store.WorkerStatusNames(); !reflect.DeepEqual(workers, want) {
		t.Errorf("worker statuses %v, the store's %v", workers, want)
	}
	for _, s := range runstatus.Runs() {
		if Finished(s.String()) != s.Finished() {
			t.Errorf("Finished(%s) = %v, the engine says %v", s, Finished(s.String()), s.Finished())
		}
	}
	if StatusLabel(RunCompletedWithIssues) != "completed with issues" {
		t.Errorf("StatusLabel = %q", StatusLabel(RunCompletedWithIssues))
	}
}

// A run whose template names the user as reviewer says so.
func TestSnapshotSaysWhoReviews(t *testing.T) {
	t.Parallel()
	snap := engine.Snapshot{Run: store.Run{ID: "orch_1", Template: json.RawMessage(`{"phases":{"review":{"enabled":true,"reviewer":"user"}}}`)}}
	if !SnapshotOf(snap).UserReviews {
		t.Error("the user reviews, and the view does not say so")
	}
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
