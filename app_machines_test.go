package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/baton-app/baton/backend/service"
	"github.com/baton-app/baton/backend/view"
)

// Settings → Machines: a machine is added, listed, refused with a sentence
// when it holds a password or a duplicate name, replaced, tested (a closed
// port: the SSH check fails with its fix) and removed, all in
// machines.json beside settings.json.
func TestMachineBindings(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("BATON_CONFIG_DIR", dir)
	ms, err := service.OpenMachines(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := NewApp(Services{Machines: ms})
	v, err := a.GetMachines()
	if err != nil || len(v.Machines) != 0 || v.Path != filepath.Join(dir, "machines.json") {
		t.Fatalf("GetMachines = %+v, %v", v, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	box := view.Machine{Name: "box", Host: "ana@" + closed, Workspace: "~/baton", Env: []string{"ANTHROPIC_API_KEY"}}
	if v, err = a.SaveMachine(box, false); err != nil || len(v.Machines) != 1 || v.Machines[0].MaxWorkers != 2 {
		t.Fatalf("add: %+v, %v", v, err)
	}
	if _, err := a.SaveMachine(box, false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second box: %v", err)
	}
	pw := view.Machine{Name: "pw", Host: "ana:secret@127.0.0.1", Workspace: "~/baton"}
	if _, err := a.SaveMachine(pw, false); err == nil || strings.Contains(err.Error(), "secret") || !strings.HasPrefix(err.Error(), "The destination") {
		t.Errorf("a password: %v", err)
	}
	box.MaxWorkers = 4
	if v, err = a.SaveMachine(box, true); err != nil || v.Machines[0].MaxWorkers != 4 {
		t.Fatalf("replace: %+v, %v", v, err)
	}
	r, err := a.TestMachine("box")
	if err != nil || r.OK || len(r.Checks) != 1 || r.Checks[0].Name != "SSH connection" || !strings.Contains(r.Checks[0].Fix, "cannot reach box") {
		t.Fatalf("test of a closed port: %+v, %v", r, err)
	}
	if _, err := a.TestMachine("nope"); err == nil || !strings.Contains(err.Error(), "the machines are box") {
		t.Errorf("test of no machine: %v", err)
	}
	if v, err = a.RemoveMachine("box"); err != nil || len(v.Machines) != 0 {
		t.Fatalf("remove: %+v, %v", v, err)
	}
	if data, err := os.ReadFile(v.Path); err != nil || strings.Contains(string(data), "secret") {
		t.Errorf("machines.json: %s %v", data, err)
	}
	if _, err := NewApp(Services{}).GetMachines(); err == nil {
		t.Error("no machines service: no error")
	}
}
