// Command pecheck checks that a file is a Windows amd64 GUI executable, as
// "make package-windows" must produce: a PE image for x86-64 (not a 32-bit
// or ARM build, not a DLL) using the GUI subsystem, so no console window opens.
//
//	go run ./tools/pecheck build/bin/baton.exe
package main

import (
	"debug/pe"
	"errors"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pecheck FILE.exe")
		os.Exit(2)
	}
	if err := check(os.Args[1]); err != nil {
		fmt.Fprintf(os.Stderr, "pecheck: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("%s: PE32+ executable for Windows amd64 (GUI)\n", os.Args[1])
}

func check(path string) error {
	f, err := pe.Open(path)
	if err != nil {
		return fmt.Errorf("not a PE executable: %w", err)
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		return fmt.Errorf("built for machine %#x, want amd64 (%#x)", f.Machine, pe.IMAGE_FILE_MACHINE_AMD64)
	}
	if f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
		return errors.New("not marked as an executable image")
	}
	if f.Characteristics&pe.IMAGE_FILE_DLL != 0 {
		return errors.New("a DLL, not an executable")
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		return errors.New("no PE32+ (64-bit) optional header")
	}
	if oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_GUI {
		return fmt.Errorf("subsystem %d, want the Windows GUI subsystem (%d)", oh.Subsystem, pe.IMAGE_SUBSYSTEM_WINDOWS_GUI)
	}
	return nil
}
