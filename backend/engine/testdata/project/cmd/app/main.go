// Command app stores one value and prints it.
package main

import (
	"fmt"

	"example.com/sample/store"
)

func main() {
	s := store.New()
	s.Put("greeting", "hello")
	v, _ := s.Get("greeting")
	fmt.Println(v)
}
