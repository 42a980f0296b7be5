// Package scope tells which files a task changed and whether it kept to
// what it was given: the outputs it declared (in its plan or its report)
// that it never wrote, and the files it changed outside its scope. Its one
// rule: what changed is read from the folder (a snapshot before the task
// and the folder after it, or the list git gives), never from the task's
// own report.
//
// Paths are slash-separated and relative to the task's folder. A scope
// entry is a file, a folder (everything under it) or a glob pattern.
//
// It imports nothing of Baton.
package scope

import (
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Limits of a snapshot: how many files it notes, and the largest file
// whose content it hashes (a larger one is known by its size and time).
const (
	MaxFiles     = 5000
	MaxHashBytes = 4 << 20
)

// skipDirs are folders a snapshot does not walk into: version control and
// installed packages, which no task's work is about.
var skipDirs = []string{".git", "node_modules", ".venv", "venv", "__pycache__", "target", ".pytest_cache"}

// Stamp is what a snapshot knows of a file.
type Stamp struct {
	Size int64
	Mod  int64
	Hash [32]byte
	// Hashed: Hash holds the content's SHA-256.
	Hashed bool
}

// Snapshot is the state of the files under some paths of a folder.
type Snapshot struct {
	// Roots are the paths the snapshot covers (relative, cleaned).
	Roots []string
	Files map[string]Stamp
	// Full: every file under the roots is in Files (none was left out
	// past MaxFiles).
	Full bool
}

// Take notes the files under paths (files or folders, relative to root)
// of folder root.
func Take(root string, paths []string) Snapshot {
	s := Snapshot{Files: map[string]Stamp{}, Full: true}
	for _, p := range paths {
		p = Clean(p)
		if p == "" || strings.ContainsAny(p, "*?[") {
			continue
		}
		s.Roots = append(s.Roots, p)
	}
	for _, r := range s.Roots {
		s.walk(root, r)
	}
	return s
}

func (s *Snapshot) walk(root, rel string) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	_ = filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != full && slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		r = filepath.ToSlash(r)
		if _, seen := s.Files[r]; seen {
			return nil
		}
		if len(s.Files) >= MaxFiles {
			s.Full = false
			return filepath.SkipAll
		}
		s.Files[r] = stamp(p)
		return nil
	})
}

// stamp reads what a snapshot keeps of file p.
func stamp(p string) Stamp {
	st, err := os.Stat(p)
	if err != nil {
		return Stamp{}
	}
	out := Stamp{Size: st.Size(), Mod: st.ModTime().UnixNano()}
	if st.Size() > MaxHashBytes {
		return out
	}
	f, err := os.Open(p)
	if err != nil {
		return out
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err == nil {
		copy(out.Hash[:], h.Sum(nil))
		out.Hashed = true
	}
	return out
}

// same reports whether two stamps are of the same content.
func same(a, b Stamp) bool {
	if a.Hashed && b.Hashed {
		return a.Hash == b.Hash
	}
	return a.Size == b.Size && a.Mod == b.Mod
}

// Covers reports whether the snapshot was taken of path p (p is under one
// of its roots).
func (s Snapshot) Covers(p string) bool { return Covers(s.Roots, p) }

// Changed lists the files under the snapshot's roots that differ in folder
// root now: new, changed or removed, sorted.
func (s Snapshot) Changed(root string) []string {
	now := Take(root, s.Roots)
	var out []string
	for p, st := range now.Files {
		if before, ok := s.Files[p]; !ok && s.Full || ok && !same(before, st) {
			out = append(out, p)
		}
	}
	for p := range s.Files {
		if _, ok := now.Files[p]; !ok && now.Full {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Clean makes p a relative, slash-separated, cleaned path ("" for the
// folder itself or a path that leaves it).
func Clean(p string) string {
	p = strings.TrimSpace(filepath.ToSlash(p))
	p = strings.TrimPrefix(p, "./")
	if p == "" || path.IsAbs(p) {
		return ""
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// Covers reports whether the scope entries cover file p: p is an entry, or
// under an entry that is a folder, or matches an entry that is a pattern.
func Covers(entries []string, p string) bool {
	p = Clean(p)
	if p == "" {
		return false
	}
	for _, e := range entries {
		if strings.ContainsAny(e, "*?[") {
			pat := strings.TrimPrefix(filepath.ToSlash(strings.TrimSpace(e)), "./")
			if ok, _ := path.Match(pat, p); ok {
				return true
			}
			if ok, _ := path.Match(pat, path.Base(p)); ok && !strings.Contains(pat, "/") {
				return true
			}
			continue
		}
		e = Clean(e)
		if e == "" {
			continue
		}
		if p == e || strings.HasPrefix(p, e+"/") {
			return true
		}
	}
	return false
}

// Verdict is what a task's changes say against what it was given.
type Verdict struct {
	// Missing are declared outputs it did not write.
	Missing []string
	// Outside are files it changed that its scope does not cover.
	Outside []string
}

// Judge compares what a task changed with what it declared and its scope:
// every declared output (a file, or a folder some file under it) must be
// among changed, unless written says it was written another way (a file
// outside what the task's changes were read from, found in its folder);
// every changed file must be covered by scope or declared, or be in one of
// exempt (the orchestrator's own folders). An empty scope covers
// everything.
func Judge(declared, changed, scope, exempt []string, written func(p string) bool) Verdict {
	var v Verdict
	for _, d := range dedupe(declared) {
		hit := slices.ContainsFunc(changed, func(c string) bool { return c == d || strings.HasPrefix(c, d+"/") })
		if !hit && (written == nil || !written(d)) {
			v.Missing = append(v.Missing, d)
		}
	}
	if len(scope) == 0 {
		return v
	}
	for _, c := range dedupe(changed) {
		if Covers(scope, c) || Covers(declared, c) || Covers(exempt, c) {
			continue
		}
		v.Outside = append(v.Outside, c)
	}
	return v
}

// dedupe cleans paths and drops empty and repeated ones, in order.
func dedupe(ps []string) []string {
	var out []string
	for _, p := range ps {
		if p = Clean(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
