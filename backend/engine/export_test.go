package engine

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/session"
	"github.com/baton-app/baton/backend/store"
	"github.com/baton-app/baton/backend/template"
)

// storeOnlyHost is a session host that is never reached: the report is
// read from the store alone.
type storeOnlyHost struct{}

var errNotReached = errors.New("the host is not reached in this test")

func (storeOnlyHost) Start(context.Context, session.StartOptions) (session.ID, error) {
	return "", errNotReached
}
func (storeOnlyHost) Send(context.Context, session.ID, string) error { return errNotReached }
func (storeOnlyHost) Read(context.Context, session.ID, session.Cursor) (session.Batch, error) {
	return session.Batch{}, errNotReached
}
func (storeOnlyHost) Session(context.Context, session.ID) (session.Info, error) {
	return session.Info{}, errNotReached
}
func (storeOnlyHost) Interrupt(context.Context, session.ID) error { return errNotReached }
func (storeOnlyHost) Archive(context.Context, session.ID) error   { return errNotReached }
func (storeOnlyHost) Notices() <-chan session.Notice              { return nil }

type noTemplates struct{}

func (noTemplates) Get(id string) (template.Template, error) {
	return template.Template{}, template.ErrNotFound
}

func TestExportReport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	quiet := slog.New(slog.DiscardHandler)
	st, err := store.Open(filepath.Join(dir, "baton.db"), store.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := New(Options{Store: st, Host: storeOnlyHost{}, Templates: noTemplates{}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Shutdown(ctx)
	run := store.Run{ID: "orch_export", TemplateID: "documentation", TemplateName: "Documentation", Cwd: dir, Request: "Document it", Status: "completed"}
	if err := st.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	// The report of a run this engine does not drive is read from the
	// store (the export itself is the service's: History.ExportTo).
	snap, err := e.Snapshot(ctx, run.ID)
	if md := Report(snap); err != nil || !strings.Contains(md, "Document it") {
		t.Fatalf("Report = %q, %v", md, err)
	}
	if _, err := e.Snapshot(ctx, "orch_none"); !errors.Is(err, ErrUnknownRun) {
		t.Fatalf("Snapshot of an unknown run: %v", err)
	}
}
