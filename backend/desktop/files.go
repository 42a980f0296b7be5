package desktop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// InsideFolder resolves path against the run folder root and refuses
// anything outside it, following symbolic links. An empty path is the
// folder itself. The errors are sentences for the user.
func InsideFolder(root, path string) (string, error) {
	if strings.TrimSpace(root) == "" {
		return "", errors.New("This run has no project folder.")
	}
	if strings.TrimSpace(path) == "" {
		path = root
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	path = filepath.Clean(path)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("The run's folder %s does not exist any more.", root)
	}
	ok := false
	if real, err := filepath.EvalSymlinks(path); err == nil {
		ok = within(realRoot, real)
	} else {
		// A missing file: checked lexically; the caller reports it missing.
		ok = within(filepath.Clean(root), path) || within(realRoot, path)
	}
	if !ok {
		return "", fmt.Errorf("%s is outside the run's folder %s; Baton only opens files of the run.", path, root)
	}
	return path, nil
}

func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// FileManager shows files and folders in the platform's file manager. It
// owns the opener processes it starts: Close waits for them (a while).
type FileManager struct {
	wg sync.WaitGroup
}

// Show opens the folder of a run's file or folder (a file opens the folder
// that holds it); path is absolute or relative to root and must lie inside
// root. The errors are sentences for the user.
func (f *FileManager) Show(root, path string) error {
	target, err := InsideFolder(root, path)
	if err != nil {
		return err
	}
	info, err := os.Stat(target)
	if err != nil {
		return fmt.Errorf("%s does not exist any more.", target)
	}
	if !info.IsDir() {
		target = filepath.Dir(target)
	}
	if err := f.open(target); err != nil {
		return fmt.Errorf("Baton could not open %s in the file manager: %s.", target, err.Error())
	}
	return nil
}

// open starts the platform's opener on dir without waiting for it to exit.
func (f *FileManager) open(dir string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", dir)
	case "windows":
		cmd = exec.Command("explorer", dir)
	default:
		cmd = exec.Command("xdg-open", dir)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	f.wg.Go(func() { _ = cmd.Wait() })
	return nil
}

// Close waits up to grace for the openers that still run (an opener may
// run as long as the file manager it started; it is left to the user).
func (f *FileManager) Close(grace time.Duration) {
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
}

// CheckFolder says, in a sentence, when dir is not an existing folder.
func CheckFolder(dir string) error {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("The folder %s does not exist.", dir)
	}
	return nil
}
