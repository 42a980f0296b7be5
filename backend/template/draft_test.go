package template

import (
	"errors"
	"testing"
)

func TestResolveDocument(t *testing.T) {
	t.Parallel()
	m, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		doc     string
		wantErr error
		check   func(t *testing.T, r Resolved)
	}{
		{
			name: "child of documentation inherits and overrides",
			doc:  `{"id":"mine","name":"Mine","description":"d","extends":"documentation","config":{"maxWorkers":7}}`,
			check: func(t *testing.T, r Resolved) {
				if r.Template.Config.MaxWorkers != 7 {
					t.Errorf("maxWorkers = %d, want 7", r.Template.Config.MaxWorkers)
				}
				if got := r.Sources["/config/maxWorkers"]; got != "mine" {
					t.Errorf("source of maxWorkers = %q, want mine", got)
				}
				if got := r.Sources["/config/maxRetries"]; got != "_default" {
					t.Errorf("source of maxRetries = %q, want _default", got)
				}
				if len(r.Chain) != 3 || r.Chain[0] != "mine" || r.Chain[1] != "documentation" {
					t.Errorf("chain = %v, want [mine documentation _default]", r.Chain)
				}
			},
		},
		{name: "schema violation", doc: `{"id":"mine","name":"Mine","extends":"_default","config":{"maxWorkers":50}}`, wantErr: ErrInvalid},
		{name: "missing parent", doc: `{"id":"mine","name":"Mine","extends":"nope"}`, wantErr: ErrMissingParent},
		{name: "not JSON", doc: `{"id":`, wantErr: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := m.ResolveDocument([]byte(tt.doc))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				if len(Problems(err)) == 0 {
					t.Errorf("error %q carries no problems", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
		})
	}
}
