package recording

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReadAndRefuseAnotherFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "probe.json")
	r := &Recording{Format: Format, AppVersion: "1.2", Methods: []Method{{Name: "getAll", Arity: 0}},
		Sessions: []Session{{ID: "local_1", GetSession: json.RawMessage(`{"sessionId":"local_1"}`)}}}
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the recording is not readable by the user only: %v %v", st.Mode(), err)
	}
	got, err := Read(path)
	if err != nil || got.AppVersion != "1.2" || got.Session("local_1") == nil || got.Session("local_2") != nil {
		t.Fatalf("Read = %+v, %v", got, err)
	}
	other := filepath.Join(dir, "other.json")
	if err := os.WriteFile(other, []byte(`{"format":"har/1.2"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), `format "har/1.2", want "baton-probe/1"`) {
		t.Fatalf("Read(another format) = %v", err)
	}
}
