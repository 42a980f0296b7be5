package simulator

import "testing"

func TestParseShapes(t *testing.T) {
	t.Parallel()
	sh, err := ParseShapes("wrapped-results, iso-dates")
	if err != nil || !sh.WrappedResults || !sh.ISODates || sh.RawEvents || sh.String() != "wrapped-results,iso-dates" {
		t.Fatalf("ParseShapes = %+v, %v", sh, err)
	}
	if all, err := ParseShapes("real"); err != nil || all != AllShapes() || all.String() != "wrapped-results,no-turn-running,split-messages,iso-dates,raw-events,worktrees,queued-messages,retitle,transcript-tail" {
		t.Fatalf("real = %+v, %v", all, err)
	}
	if _, err := ParseShapes("bogus"); err == nil {
		t.Fatal("an unknown shape was accepted")
	}
}
