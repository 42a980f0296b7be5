package jsonkind

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	var v []any
	d := json.NewDecoder(strings.NewReader(`[null, true, 1, "s", [], {}]`))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	v = append(v, 2.5, 7)
	want := []string{"null", "a boolean", "a number", "a string", "a list", "an object", "a number", "int"}
	for i, x := range v {
		if got := Of(x); got != want[i] {
			t.Errorf("Of(%#v) = %q, want %q", x, got, want[i])
		}
	}
}
