// Package atomicfile replaces files so that a reader sees the old file or
// the new one, never a part of either: the data goes to a temporary file in
// the same folder, is synced, and is renamed over the target.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with mode perm. The folder must exist. On
// failure the temporary file is removed and path is as it was.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", base, err)
	}
	defer func() {
		if err != nil {
			if rerr := os.Remove(f.Name()); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}()
	if err = f.Chmod(perm); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", base, err)
	}
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", base, err)
	}
	if err = f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("sync %s: %w", base, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", base, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", base, err)
	}
	return nil
}
