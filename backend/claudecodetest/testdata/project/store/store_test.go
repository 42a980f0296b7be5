package store

import "testing"

func TestSetGet(t *testing.T) {
	s := New()
	s.Set("a", "1")
	if v, ok := s.Get("a"); !ok || v != "1" {
		t.Fatalf("Get(a) = %q, %v", v, ok)
	}
	if got := s.Keys(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("Keys() = %v", got)
	}
}
