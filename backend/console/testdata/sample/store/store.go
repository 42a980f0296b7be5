package store

import "sync"

// Item is one kind of thing in stock.
type Item struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// Store keeps items in memory.
type Store struct {
	mu    sync.Mutex
	items map[string]int
}

func New() *Store { return &Store{items: map[string]int{}} }

func (s *Store) Add(name string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items[name] += n
}

func (s *Store) All() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Item, 0, len(s.items))
	for name, n := range s.items {
		out = append(out, Item{Name: name, Count: n})
	}
	return out
}
