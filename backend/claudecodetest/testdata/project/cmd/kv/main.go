// Command kv sets and prints values: kv KEY=VALUE... prints every key.
package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/kv/store"
)

func main() {
	s := store.New()
	for _, arg := range os.Args[1:] {
		k, v, _ := strings.Cut(arg, "=")
		s.Set(k, v)
	}
	for _, k := range s.Keys() {
		v, _ := s.Get(k)
		fmt.Printf("%s=%s\n", k, v)
	}
}
