//go:build linux || freebsd || openbsd || netbsd

package notify

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// fakeWatcher stands in for the desktop's StatusNotifierWatcher and records
// the bus name of every item that registers.
type fakeWatcher struct {
	registered chan string
}

func (w *fakeWatcher) RegisterStatusNotifierItem(sender dbus.Sender, path string) *dbus.Error {
	w.registered <- string(sender)
	return nil
}

type menuItem struct {
	id    int32
	label string
}

// itemLabels reads the labels of known menu items with GetGroupProperties,
// as a panel does after the first layout. (A second GetLayout would race
// inside fyne.io/systray v1.12.2: it reads the menu version under one lock
// while refresh writes it under another.)
func itemLabels(t *testing.T, conn *dbus.Conn, dest string, items []menuItem) []string {
	t.Helper()
	ids := make([]int32, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	var props []struct {
		ID    int32
		Props map[string]dbus.Variant
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	obj := conn.Object(dest, "/StatusNotifierItem/menu")
	if err := obj.CallWithContext(ctx, "com.canonical.dbusmenu.GetGroupProperties", 0, ids, []string{}).Store(&props); err != nil {
		t.Fatalf("GetGroupProperties: %v", err)
	}
	var labels []string
	for _, p := range props {
		label, _ := p.Props["label"].Value().(string)
		labels = append(labels, label)
	}
	return labels
}

// menuLabels reads the tray menu the way a desktop panel does (com.canonical.dbusmenu).
func menuLabels(t *testing.T, conn *dbus.Conn, dest string) []menuItem {
	t.Helper()
	var revision uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	obj := conn.Object(dest, "/StatusNotifierItem/menu")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := obj.CallWithContext(ctx, "com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&revision, &layout); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	var items []menuItem
	for _, c := range layout.Children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) < 2 {
			t.Fatalf("unexpected menu entry %#v", c.Value())
		}
		id, _ := fields[0].(int32)
		props, _ := fields[1].(map[string]dbus.Variant)
		label, _ := props["label"].Value().(string)
		if kind, _ := props["type"].Value().(string); kind == "separator" {
			continue
		}
		items = append(items, menuItem{id: id, label: label})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].id < items[j].id })
	return items
}

// trayTested lets -count=N reruns skip: the systray library can show its
// icon once per process.
var trayTested atomic.Bool

func TestTray(t *testing.T) {
	needBus(t)
	if !trayTested.CompareAndSwap(false, true) {
		t.Skip("the tray can start once per process; this is a -count rerun")
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := &fakeWatcher{registered: make(chan string, 4)}
	if err := conn.ExportMethodTable(map[string]any{"RegisterStatusNotifierItem": w.RegisterStatusNotifierItem}, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own the watcher name: %v %v", reply, err)
	}

	shown := make(chan struct{}, 4)
	quit := make(chan struct{}, 4)
	tray, err := StartTray(TrayOptions{
		Icon:   testIcon(t),
		OnShow: func() { shown <- struct{}{} },
		OnQuit: func() { quit <- struct{}{} },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tray.Stop()

	var item string
	select {
	case item = <-w.registered:
	case <-time.After(20 * time.Second):
		t.Fatal("the tray icon never registered with the StatusNotifierWatcher")
	}

	labelsOf := func(items []menuItem) []string {
		var out []string
		for _, it := range items {
			out = append(out, it.label)
		}
		return out
	}
	want := []string{"Show Baton", "0 active runs", "0 items waiting for you", "Quit"}
	items := menuLabels(t, conn, item)
	if got := labelsOf(items); !slices.Equal(got, want) {
		t.Fatalf("menu = %q, want %q", got, want)
	}

	tray.SetCounts(2, 1)
	want = []string{"Show Baton", "2 active runs", "1 item waiting for you", "Quit"}
	if got := itemLabels(t, conn, item, items); !slices.Equal(got, want) {
		t.Fatalf("menu after SetCounts = %q, want %q", got, want)
	}
	tooltip, err := conn.Object(item, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatalf("read the tooltip: %v", err)
	}
	if got := tooltip.String(); !strings.Contains(got, TrayTooltip(2, 1)) {
		t.Fatalf("tooltip = %s, want it to hold %q", got, TrayTooltip(2, 1))
	}

	click := func(id int32) {
		t.Helper()
		call := conn.Object(item, "/StatusNotifierItem/menu").Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(0))
		if call.Err != nil {
			t.Fatalf("click menu item %d: %v", id, call.Err)
		}
	}
	click(items[0].id)
	select {
	case <-shown:
	case <-time.After(10 * time.Second):
		t.Fatal("clicking Show Baton did not call OnShow")
	}
	click(items[len(items)-1].id)
	select {
	case <-quit:
	case <-time.After(10 * time.Second):
		t.Fatal("clicking Quit did not call OnQuit")
	}

	if _, err := StartTray(TrayOptions{}); err == nil {
		t.Fatal("a second StartTray succeeded; the systray library holds one icon per process")
	}
}

func TestTrayTooltip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		active, waiting int
		want            string
	}{
		{0, 0, "Baton: 0 active runs, 0 items waiting for you"},
		{1, 1, "Baton: 1 active run, 1 item waiting for you"},
		{3, 12, "Baton: 3 active runs, 12 items waiting for you"},
	}
	for _, tt := range tests {
		if got := TrayTooltip(tt.active, tt.waiting); got != tt.want {
			t.Errorf("TrayTooltip(%d, %d) = %q, want %q", tt.active, tt.waiting, got, tt.want)
		}
	}
}

// testIcon is a real 16×16 PNG, as Baton's tray gets its app icon.
func testIcon(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
