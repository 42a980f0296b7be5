package api

import (
	"encoding/json"
	"net/http"

	"example.com/inventory/store"
)

// Items lists every item as JSON.
func Items(s *store.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.All())
	}
}
