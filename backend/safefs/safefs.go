// Package safefs is the one rule for every path Baton reads or writes in a
// project folder (or in its own data directory): a path is resolved inside
// its folder after following symbolic links, through os.Root, never by
// joining strings. A path that leaves the folder — by "..", by being
// absolute, or through a symbolic link that points outside — is refused
// with an *EscapeError, whose sentence names the file and the path.
//
// A Dir is a trusted folder (Base, chosen by the user) and a folder below
// it (Sub) that paths are relative to. Sub must itself stay inside Base, and
// every name given to a Dir must stay inside Sub.
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrEscape is wrapped by every *EscapeError.
var ErrEscape = errors.New("path leads outside its folder")

// EscapeError is a refused path.
type EscapeError struct {
	// Source is the file the path came from ("queue.json", "index.md"),
	// or "" when the path is one Baton uses itself.
	Source string
	// Path is the path as given.
	Path string
	// Folder is the folder the path must stay in.
	Folder string
	// Link is true when the path only leaves the folder through a symbolic
	// link.
	Link bool
}

func (e *EscapeError) Error() string {
	how := "leads outside"
	if e.Link {
		how = "leads, through a symbolic link, outside"
	}
	if e.Source != "" {
		return fmt.Sprintf("%s names the path %q, which %s %s; Baton refuses it and goes on without it", e.Source, e.Path, how, e.Folder)
	}
	return fmt.Sprintf("the file %q %s %s; Baton refuses it and goes on without it", e.Path, how, e.Folder)
}

func (e *EscapeError) Unwrap() error { return ErrEscape }

// Local reports whether name (slash- or OS-separated) stays inside the
// folder it is relative to by its text alone: not empty, not absolute, no
// ".." that climbs out, no volume name, no NUL byte.
func Local(name string) bool {
	if name == "" || strings.ContainsRune(name, 0) {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(name))
}

// Dir is a folder that names are resolved in.
type Dir struct {
	// Base is the trusted folder: the project folder or Baton's data
	// directory.
	Base string
	// Sub is a slash-separated folder below Base ("" for Base itself).
	Sub string
	// Source names where the names come from, for the refusal sentence;
	// it may be "".
	Source string
}

// In returns the Dir of the folder sub below d.
func (d Dir) In(sub string) Dir {
	d.Sub = path.Join(d.Sub, filepath.ToSlash(sub))
	return d
}

// From returns d with names coming from source (a file such as
// "queue.json").
func (d Dir) From(source string) Dir {
	d.Source = source
	return d
}

// Path returns the host path of name in d, for messages and watchers only;
// it must never be opened.
func (d Dir) Path(name string) string {
	return filepath.Join(d.Base, filepath.FromSlash(d.Sub), filepath.FromSlash(name))
}

func (d Dir) folder() string {
	if d.Sub == "" {
		return "the folder " + d.Base
	}
	return "the folder " + filepath.Join(d.Base, filepath.FromSlash(d.Sub))
}

func (d Dir) refuse(name string, link bool) error {
	return &EscapeError{Source: d.Source, Path: name, Folder: d.folder(), Link: link}
}

// check refuses a name that leaves d by its text.
func (d Dir) check(name string) error {
	if !Local(name) {
		return d.refuse(name, false)
	}
	return nil
}

// open opens the root of d; with create, Sub is created first.
func (d Dir) open(create bool) (*os.Root, error) {
	base, err := os.OpenRoot(d.Base)
	if err != nil {
		return nil, err
	}
	if d.Sub == "" || d.Sub == "." {
		return base, nil
	}
	defer base.Close()
	if !Local(d.Sub) {
		return nil, &EscapeError{Path: d.Sub, Folder: "the folder " + d.Base}
	}
	sub := filepath.FromSlash(d.Sub)
	if create {
		if err := base.MkdirAll(sub, 0o755); err != nil {
			return nil, d.mapErr(d.Sub, err, "the folder "+d.Base)
		}
	}
	r, err := base.OpenRoot(sub)
	if err != nil {
		return nil, d.mapErr(d.Sub, err, "the folder "+d.Base)
	}
	return r, nil
}

// mapErr turns os.Root's escape error into an *EscapeError.
func (d Dir) mapErr(name string, err error, folder string) error {
	if err == nil {
		return nil
	}
	if isEscape(err) {
		if folder == "" {
			folder = d.folder()
		}
		return &EscapeError{Source: d.Source, Path: name, Folder: folder, Link: true}
	}
	return err
}

func isEscape(err error) bool {
	var ee *EscapeError
	if errors.As(err, &ee) {
		return false
	}
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

func (d Dir) do(name string, create bool, f func(r *os.Root, name string) error) error {
	if err := d.check(name); err != nil {
		return err
	}
	r, err := d.open(create)
	if err != nil {
		var ee *EscapeError
		if errors.As(err, &ee) {
			return err
		}
		return d.mapErr(name, err, "")
	}
	defer r.Close()
	return d.mapErr(name, f(r, filepath.FromSlash(name)), "")
}

// ReadFile reads the file name.
func (d Dir) ReadFile(name string) ([]byte, error) {
	var data []byte
	err := d.do(name, false, func(r *os.Root, n string) (err error) {
		data, err = r.ReadFile(n)
		return err
	})
	return data, err
}

// Stat returns the file info of name, following symbolic links inside d.
func (d Dir) Stat(name string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	err := d.do(name, false, func(r *os.Root, n string) (err error) {
		fi, err = r.Stat(n)
		return err
	})
	return fi, err
}

// MkdirAll creates the folder name (and Sub) with perm.
func (d Dir) MkdirAll(name string, perm fs.FileMode) error {
	if name == "" || name == "." {
		r, err := d.open(true)
		if err != nil {
			return err
		}
		return r.Close()
	}
	return d.do(name, true, func(r *os.Root, n string) error { return r.MkdirAll(n, perm) })
}

// Rename moves from to to, both names in d.
func (d Dir) Rename(from, to string) error {
	if err := d.check(to); err != nil {
		return err
	}
	return d.do(from, false, func(r *os.Root, n string) error {
		if err := linkOut(r, filepath.FromSlash(to)); err != nil {
			return d.mapErr(to, err, "")
		}
		return d.mapErr(to, r.Rename(n, filepath.FromSlash(to)), "")
	})
}

// ReadDir lists the folder name ("." for d itself).
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	err := d.do(name, false, func(r *os.Root, n string) error {
		f, err := r.Open(n)
		if err != nil {
			return err
		}
		defer f.Close()
		out, err = f.ReadDir(-1)
		return err
	})
	return out, err
}

// OpenFile opens name with flag and perm; the file stays usable after the
// call (the caller closes it).
func (d Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	var f *os.File
	err := d.do(name, false, func(r *os.Root, n string) (err error) {
		f, err = r.OpenFile(n, flag, perm)
		return err
	})
	return f, err
}

// FS returns a file system of d's folder that never leaves it.
func (d Dir) FS() (fs.FS, func() error, error) {
	r, err := d.open(false)
	if err != nil {
		return nil, nil, err
	}
	return r.FS(), r.Close, nil
}

// linkOut refuses a name that is a symbolic link leading out of r, so that
// it is neither followed nor replaced.
func linkOut(r *os.Root, n string) error {
	if fi, err := r.Lstat(n); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := r.Stat(n); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// WriteFile replaces name with data, with mode perm, atomically: the data
// goes to a temporary file in the same folder, is synced, and is renamed
// over name. A symbolic link at name is replaced, not followed; a folder on
// the way that is a link out of d is refused.
func (d Dir) WriteFile(name string, data []byte, perm fs.FileMode) error {
	return d.do(name, false, func(r *os.Root, n string) (err error) {
		if err := linkOut(r, n); err != nil {
			return err
		}
		dir, base := filepath.Split(n)
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp")
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return err
		}
		defer func() {
			if err != nil {
				if rerr := r.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
					err = errors.Join(err, rerr)
				}
			}
		}()
		if err = f.Chmod(perm); err != nil {
			_ = f.Close()
			return err
		}
		if _, err = f.Write(data); err != nil {
			_ = f.Close()
			return err
		}
		if err = f.Sync(); err != nil {
			_ = f.Close()
			return err
		}
		if err = f.Close(); err != nil {
			return err
		}
		return r.Rename(tmp, n)
	})
}

// OneLine makes text from an agent safe to write inside one line of a
// Markdown or log file Baton keeps: line breaks (also \r, U+0085, U+2028,
// U+2029) and other control characters become spaces, so the text cannot
// start a new line, entry or heading there.
func OneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = r == ' '
		b.WriteRune(r)
	}
	return b.String()
}
