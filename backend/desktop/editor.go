package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// terminalEditors are editors that need a terminal, which the window does
// not have: for them the desktop's opener is used instead.
var terminalEditors = []string{"vi", "vim", "nvim", "nano", "pico", "micro", "hx", "helix", "ed", "ex", "joe", "ne", "mg",
	"kak", "mcedit", "jed", "view", "emacsclient -t", "emacs -nw"}

// EditorCommand is the command that opens file in the user's editor: their
// $VISUAL, else their $EDITOR (split into words, no shell), unless it is
// one that needs a terminal; else the desktop's opener for the file
// (xdg-open, open, or start on Windows). getenv reads the environment.
func EditorCommand(file string, getenv func(string) string, goos string) []string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		words := strings.Fields(getenv(v))
		if len(words) == 0 || needsTerminal(words) {
			continue
		}
		return append(words, file)
	}
	switch goos {
	case "darwin":
		return []string{"open", file}
	case "windows":
		return []string{"cmd", "/c", "start", "", file}
	}
	return []string{"xdg-open", file}
}

func needsTerminal(words []string) bool {
	name := strings.TrimSuffix(filepath.Base(words[0]), ".exe")
	if slices.Contains(terminalEditors, name) {
		return true
	}
	for _, w := range words[1:] {
		if slices.Contains(terminalEditors, name+" "+w) {
			return true
		}
	}
	return false
}

// Edit opens file in the user's editor (EditorCommand) without waiting for
// it; Baton itself never edits the file. The errors are sentences for the
// user.
func (f *FileManager) Edit(file string) error {
	if _, err := os.Stat(file); err != nil {
		return fmt.Errorf("%s does not exist any more.", file)
	}
	args := EditorCommand(file, os.Getenv, runtime.GOOS)
	cmd := exec.Command(args[0], args[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("Baton could not open %s with %s: %s. Set VISUAL to your editor.", file, args[0], err.Error())
	}
	f.wg.Go(func() { _ = cmd.Wait() })
	return nil
}
