package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/baton-app/baton/backend/remote"
)

// TestBrowsersGetEveryBinding: the table a browser calls is read from the
// App by reflection, so it holds every exported method of App, which is
// what Wails binds: the names in the generated frontend/wailsjs/go/main
// (a binding missing from one of the three fails here).
func TestBrowsersGetEveryBinding(t *testing.T) {
	t.Parallel()
	app := NewApp(Services{})
	table, err := remote.NewBindings(app.forBrowser())
	if err != nil {
		t.Fatal(err)
	}
	served := table.Names()

	var methods []string
	rt := reflect.TypeOf(app)
	for i := range rt.NumMethod() {
		methods = append(methods, rt.Method(i).Name)
	}
	slices.Sort(methods)
	if !slices.Equal(served, methods) {
		t.Errorf("served %v\nApp's exported methods %v", served, methods)
	}

	src, err := os.ReadFile("frontend/wailsjs/go/main/App.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	var generated []string
	for _, m := range regexp.MustCompile(`(?m)^export function (\w+)\(`).FindAllStringSubmatch(string(src), -1) {
		generated = append(generated, m[1])
	}
	slices.Sort(generated)
	if len(generated) < 40 || !slices.Equal(served, generated) {
		t.Errorf("served %v\nbound by Wails (frontend/wailsjs; regenerate it with wails generate module) %v", served, generated)
	}
}

type fakeRemote struct{ turnedOff, started bool }

func (f *fakeRemote) Status() remote.Status { return remote.Status{Running: true} }
func (f *fakeRemote) Start(string, bool) (remote.Link, error) {
	f.started = true
	return remote.Link{}, nil
}
func (f *fakeRemote) TurnOff(context.Context) error { f.turnedOff = true; return nil }
func (f *fakeRemote) NewLink() (remote.Link, error) {
	return remote.Link{URL: "http://127.0.0.1:8390/login?token=t"}, nil
}

// TestBrowserBindingsWithoutTheWindow: in a browser the bindings that need
// the native window answer with a sentence (the window's would end the
// process without a Wails context), and remote access cannot be turned off
// from the browser it serves.
func TestBrowserBindingsWithoutTheWindow(t *testing.T) {
	t.Parallel()
	r := &fakeRemote{}
	b := NewApp(Services{Remote: r}).forBrowser()
	if _, err := b.ChooseFolder(""); err == nil || !strings.Contains(err.Error(), "type the folder's path") {
		t.Errorf("ChooseFolder: %v", err)
	}
	if _, err := b.ImportTemplate(); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("ImportTemplate: %v", err)
	}
	if _, err := b.ExportTemplate("documentation", false); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("ExportTemplate: %v", err)
	}
	if _, err := b.ExportRunReport("orch_1"); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("ExportRunReport: %v", err)
	}
	if err := b.OpenPath("orch_1", ""); err == nil || !strings.Contains(err.Error(), "window") {
		t.Errorf("OpenPath: %v", err)
	}
	_ = b.Ready() // no startup check to mark
	if err := b.StopRemoteAccess(); err == nil || r.turnedOff {
		t.Errorf("StopRemoteAccess from a browser: %v (turned off: %v)", err, r.turnedOff)
	}
	if _, err := b.StartRemoteAccess("127.0.0.1:8390", false); err == nil || r.started {
		t.Errorf("StartRemoteAccess from a browser: %v", err)
	}
	if st, err := b.RemoteAccessStatus(); err != nil || !st.FromBrowser || !st.Running {
		t.Errorf("status from a browser: %+v %v", st, err)
	}
	if link, err := b.NewRemoteLink(); err != nil || link.URL == "" {
		t.Errorf("NewRemoteLink from a browser: %+v %v", link, err)
	}
	// The window's own bindings turn it off.
	if err := NewApp(Services{Remote: r}).StopRemoteAccess(); err != nil || !r.turnedOff {
		t.Errorf("StopRemoteAccess in the window: %v", err)
	}
	if _, err := NewApp(Services{}).RemoteAccessStatus(); err == nil {
		t.Error("no remote access, no sentence")
	}
}

// TestStartRemoteAccessSentences: the window's Turn on with the real remote
// access: a port another program holds, or no address at all, is a
// sentence; the first start returns the link.
func TestStartRemoteAccessSentences(t *testing.T) {
	t.Parallel()
	access, err := remote.NewAccess(remote.AccessOptions{Dir: t.TempDir(), Assets: fstest.MapFS{"index.html": {Data: []byte("<html><head></head></html>")}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	app := NewApp(Services{Remote: access})
	table, err := remote.NewBindings(app.forBrowser())
	if err != nil {
		t.Fatal(err)
	}
	access.Serve(table)
	t.Cleanup(func() { _ = access.Stop(context.Background()) })

	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := app.StartRemoteAccess(held.Addr().String(), false); err == nil || err.Error() != "Another program already listens on "+held.Addr().String()+": choose another port." {
		t.Errorf("a port in use: %v", err)
	}
	if _, err := app.StartRemoteAccess("8390", false); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("no host: %v", err)
	}
	link, err := app.StartRemoteAccess("127.0.0.1:0", false)
	if err != nil || !strings.Contains(link.URL, "/login?token=") || link.QR == "" {
		t.Fatalf("the first start: %+v %v", link, err)
	}
	if _, err := app.StartRemoteAccess("127.0.0.1:0", false); err == nil || err.Error() != "Remote access is already on." {
		t.Errorf("a second start: %v", err)
	}
}
