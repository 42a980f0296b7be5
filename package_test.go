//go:build package

package main

// The checks of "make package-check" (part of "make test"): the .deb and the
// tarball that scripts/package.sh wrote into BATON_DIST for BATON_VERSION.
// Every tool they need is required: a missing one fails the test.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pkgIconSizes are the hicolor sizes the package ships as PNG (plus scalable SVG).
var pkgIconSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

// pkgExpectedFiles is every regular file of the .deb (directories are implied).
func pkgExpectedFiles() []string {
	files := []string{
		"usr/bin/baton",
		"usr/share/applications/baton.desktop",
		"usr/share/doc/baton/changelog.gz",
		"usr/share/doc/baton/copyright",
		"usr/share/icons/hicolor/scalable/apps/baton.svg",
		"usr/share/lintian/overrides/baton",
		"usr/share/man/man1/baton.1.gz",
		"usr/share/metainfo/io.github.baton_app.baton.metainfo.xml",
	}
	for _, s := range pkgIconSizes {
		files = append(files, fmt.Sprintf("usr/share/icons/hicolor/%dx%d/apps/baton.png", s, s))
	}
	slices.Sort(files)
	return files
}

// pkgAllowedOverrides are the only lintian tags the package may override; each
// carries its reason in build/linux/lintian-overrides.
var pkgAllowedOverrides = []string{"spelling-error-in-binary"}

var (
	pkgVersion string
	pkgDeb     string
	pkgTarball string
	pkgRoot    string // the .deb extracted with dpkg -x
	pkgSetup   error
)

func TestMain(m *testing.M) {
	pkgSetup = setupPackage()
	code := m.Run()
	if pkgRoot != "" {
		os.RemoveAll(filepath.Dir(pkgRoot))
	}
	os.Exit(code)
}

func setupPackage() error {
	pkgVersion = os.Getenv("BATON_VERSION")
	dist := os.Getenv("BATON_DIST")
	if pkgVersion == "" || dist == "" {
		return errors.New(`BATON_VERSION and BATON_DIST must be set; run these tests with "make package-check"`)
	}
	pkgDeb = filepath.Join(dist, "baton_"+pkgVersion+"_amd64.deb")
	pkgTarball = filepath.Join(dist, "baton_"+pkgVersion+"_linux_amd64.tar.gz")
	for _, f := range []string{pkgDeb, pkgTarball} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%v; build the packages with \"make package\"", err)
		}
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		return errors.New("dpkg is needed to extract the package and is not installed")
	}
	dir, err := os.MkdirTemp("", "baton-package-")
	if err != nil {
		return err
	}
	pkgRoot = filepath.Join(dir, "root")
	if out, err := exec.Command("dpkg", "-x", pkgDeb, pkgRoot).CombinedOutput(); err != nil {
		return fmt.Errorf("dpkg -x %s: %v\n%s", pkgDeb, err, out)
	}
	return nil
}

// needPackage fails the test when the packages could not be found or
// extracted, or when one of tools is not installed.
func needPackage(t *testing.T, tools ...string) {
	t.Helper()
	if pkgSetup != nil {
		t.Fatal(pkgSetup)
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for this check and is not installed; \"make test-deps\" installs it", tool)
		}
	}
}

func pkgRun(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPackageContents compares "dpkg-deb --contents" with the expected list
// and checks the control fields.
func TestPackageContents(t *testing.T) {
	needPackage(t, "dpkg-deb")
	var files []string
	dirs := map[string]bool{}
	for line := range strings.Lines(pkgRun(t, "dpkg-deb", "--contents", pkgDeb)) {
		// drwxr-xr-x root/root 0 2026-11-23 19:26 ./usr/bin/
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("unexpected dpkg-deb --contents line %q", line)
		}
		mode, owner, name := f[0], f[1], strings.TrimPrefix(f[5], "./")
		if owner != "root/root" {
			t.Errorf("%s is owned by %s, want root/root", name, owner)
		}
		switch {
		case strings.HasPrefix(mode, "d"):
			if mode != "drwxr-xr-x" {
				t.Errorf("directory %s has mode %s, want drwxr-xr-x", name, mode)
			}
			dirs[strings.TrimSuffix(name, "/")] = true
		case name == "usr/bin/baton":
			if mode != "-rwxr-xr-x" {
				t.Errorf("%s has mode %s, want -rwxr-xr-x", name, mode)
			}
			files = append(files, name)
		default:
			if mode != "-rw-r--r--" {
				t.Errorf("%s has mode %s, want -rw-r--r--", name, mode)
			}
			files = append(files, name)
		}
	}
	slices.Sort(files)
	if want := pkgExpectedFiles(); !slices.Equal(files, want) {
		t.Errorf("the package holds\n  %s\nwant\n  %s", strings.Join(files, "\n  "), strings.Join(want, "\n  "))
	}
	// Every directory is there because a file needs it: no empty ones.
	for d := range dirs {
		if d == "" {
			continue
		}
		used := slices.ContainsFunc(files, func(f string) bool { return strings.HasPrefix(f, d+"/") })
		if !used {
			t.Errorf("the package holds the empty directory %s", d)
		}
	}

	field := func(name string) string {
		return strings.TrimSpace(pkgRun(t, "dpkg-deb", "--field", pkgDeb, name))
	}
	for name, want := range map[string]string{
		"Package": "baton", "Version": pkgVersion, "Architecture": "amd64", "Section": "devel",
		// Debian's chromium; Ubuntu's is chromium-browser.
		"Recommends": "chromium | chromium-browser",
	} {
		if got := field(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	depends := field("Depends")
	for _, want := range []string{"libc6", "libgtk-3-0", "libwebkit2gtk-4.1-0"} {
		if !regexp.MustCompile(`(^|, )` + regexp.QuoteMeta(want) + `( \(|,|$)`).MatchString(depends) {
			t.Errorf("Depends %q does not name %s", depends, want)
		}
	}
	if !strings.HasPrefix(field("Description"), "run one large request as many Claude Code sessions") {
		t.Errorf("Description: %q", field("Description"))
	}
}

// pkgDesktopEntry reads the [Desktop Entry] group of the installed .desktop file.
func pkgDesktopEntry(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pkgRoot, "usr/share/applications/baton.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	entry := map[string]string{}
	group := ""
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("bad line in baton.desktop: %q", line)
			}
			entry[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return entry
}

// TestPackageDesktopEntry validates the menu entry and checks that its icon
// is installed in every hicolor size, at that size.
func TestPackageDesktopEntry(t *testing.T) {
	needPackage(t, "desktop-file-validate")
	file := filepath.Join(pkgRoot, "usr/share/applications/baton.desktop")
	out, err := exec.Command("desktop-file-validate", file).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s", err, out)
	}
	e := pkgDesktopEntry(t)
	for k, want := range map[string]string{"Type": "Application", "Name": "Baton", "Icon": "baton", "Terminal": "false"} {
		if e[k] != want {
			t.Errorf("%s=%q, want %q", k, e[k], want)
		}
	}
	if !slices.Contains(strings.Split(e["Categories"], ";"), "Development") {
		t.Errorf("Categories=%q does not hold Development", e["Categories"])
	}
	if e["Comment"] == "" {
		t.Error("the menu entry has no Comment")
	}
	for _, s := range pkgIconSizes {
		p := filepath.Join(pkgRoot, fmt.Sprintf("usr/share/icons/hicolor/%dx%d/apps/%s.png", s, s, e["Icon"]))
		f, err := os.Open(p)
		if err != nil {
			t.Error(err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
		} else if cfg.Width != s || cfg.Height != s {
			t.Errorf("%s is %dx%d", p, cfg.Width, cfg.Height)
		}
	}
	svg, err := os.ReadFile(filepath.Join(pkgRoot, "usr/share/icons/hicolor/scalable/apps/baton.svg"))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("no scalable SVG icon: %v", err)
	}
}

type pkgMetainfo struct {
	ID          string `xml:"id"`
	Name        string `xml:"name"`
	Launchables []struct {
		Type string `xml:"type,attr"`
		ID   string `xml:",chardata"`
	} `xml:"launchable"`
	Icon        string `xml:"icon"`
	Screenshots []struct {
		Caption string `xml:"caption"`
		Image   string `xml:"image"`
	} `xml:"screenshots>screenshot"`
	Releases []struct {
		Version string `xml:"version,attr"`
		Date    string `xml:"date,attr"`
	} `xml:"releases>release"`
}

// TestPackageMetainfo validates the AppStream metadata (strictly, offline) and
// checks that it launches the menu entry, names this version, and shows every
// screenshot of docs/screenshots with the caption the README gives it.
func TestPackageMetainfo(t *testing.T) {
	needPackage(t, "appstreamcli")
	file := filepath.Join(pkgRoot, "usr/share/metainfo/io.github.baton_app.baton.metainfo.xml")
	out, err := exec.Command("appstreamcli", "validate", "--no-net", "--strict", "--explain", file).CombinedOutput()
	if err != nil {
		t.Errorf("appstreamcli validate --no-net --strict: %v\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var m pkgMetainfo
	if err := xml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.ID != "io.github.baton_app.baton" || m.Name != "Baton" || m.Icon != "baton" {
		t.Errorf("id %q, name %q, icon %q", m.ID, m.Name, m.Icon)
	}
	if len(m.Launchables) != 1 || m.Launchables[0].Type != "desktop-id" {
		t.Fatalf("launchables %+v, want one desktop-id", m.Launchables)
	}
	if _, err := os.Stat(filepath.Join(pkgRoot, "usr/share/applications", m.Launchables[0].ID)); err != nil {
		t.Errorf("the launchable names no installed menu entry: %v", err)
	}
	if len(m.Releases) == 0 || m.Releases[0].Version != pkgVersion {
		t.Errorf("releases %+v, want the newest to be %s", m.Releases, pkgVersion)
	}

	// The README's screenshot table: a row of images, then a row of captions.
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	captions := map[string]string{} // file name → caption
	var images []string
	imageRE := regexp.MustCompile(`!\[[^\]]*\]\(docs/screenshots/([^)]+)\)`)
	for line := range strings.Lines(string(readme)) {
		if found := imageRE.FindAllStringSubmatch(line, -1); found != nil {
			images = images[:0]
			for _, f := range found {
				images = append(images, f[1])
			}
			continue
		}
		if len(images) > 0 && strings.HasPrefix(line, "|") {
			cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
			if len(cells) == len(images) {
				for i, c := range cells {
					captions[images[i]] = strings.ReplaceAll(strings.TrimSpace(c), "*", "")
				}
			}
			images = images[:0]
		}
	}
	shots, err := filepath.Glob("docs/screenshots/*.png")
	if err != nil || len(shots) == 0 {
		t.Fatalf("no screenshots in docs/screenshots (%v)", err)
	}
	shown := map[string]string{}
	for _, s := range m.Screenshots {
		shown[path.Base(s.Image)] = s.Caption
		if !strings.HasPrefix(s.Image, "https://") {
			t.Errorf("screenshot %q is not an https URL", s.Image)
		}
	}
	for _, shot := range shots {
		name := filepath.Base(shot)
		caption, ok := shown[name]
		switch {
		case !ok:
			t.Errorf("the metainfo does not show %s", shot)
		case captions[name] == "":
			t.Errorf("the README gives %s no caption", name)
		case caption != captions[name]:
			t.Errorf("%s: caption %q, the README says %q", name, caption, captions[name])
		}
	}
	if len(m.Screenshots) != len(shots) {
		t.Errorf("%d screenshots in the metainfo, %d in docs/screenshots", len(m.Screenshots), len(shots))
	}
}

// TestPackageLintian runs lintian: no error, warning or info (an override
// lintian no longer needs is the info unused-override), and only the allowed
// overrides, each with its reason.
func TestPackageLintian(t *testing.T) {
	needPackage(t, "lintian")
	cmd := exec.Command("lintian", "--display-info", "--fail-on", "error,warning,info", pkgDeb)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = io.Discard // "running with root privileges is not recommended!"
	err := cmd.Run()
	t.Logf("lintian:\n%s", stdout.String())
	if err != nil {
		t.Errorf("lintian failed (%v): see its output above", err)
	}
	for line := range strings.Lines(stdout.String()) {
		if strings.HasPrefix(line, "E: ") || strings.HasPrefix(line, "W: ") || strings.HasPrefix(line, "I: ") ||
			strings.Contains(line, "unused-override") || strings.Contains(line, "mismatched-override") {
			t.Errorf("lintian: %s", strings.TrimSpace(line))
		}
	}

	overrides, err := os.ReadFile(filepath.Join(pkgRoot, "usr/share/lintian/overrides/baton"))
	if err != nil {
		t.Fatal(err)
	}
	reason := false
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(overrides))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			reason = false
		case strings.HasPrefix(line, "#"):
			reason = true
		default:
			n++
			tag := strings.Fields(strings.TrimPrefix(line, "baton: "))[0]
			if !slices.Contains(pkgAllowedOverrides, tag) {
				t.Errorf("lintian tag %s is overridden; only %v may be", tag, pkgAllowedOverrides)
			}
			if !reason {
				t.Errorf("the override %q has no comment giving its reason", line)
			}
		}
	}
	if n == 0 {
		t.Error("the overrides file lists no override")
	}
}

// pkgExecArgs turns the Exec key of a desktop entry into the program and its
// arguments, as a launcher would with no file to open: field codes dropped.
func pkgExecArgs(t *testing.T, exec string) []string {
	t.Helper()
	if strings.ContainsAny(exec, `"'\`) {
		t.Fatalf("Exec=%s: quoting is not handled by this test", exec)
	}
	var args []string
	for _, f := range strings.Fields(exec) {
		if len(f) == 2 && f[0] == '%' {
			continue // %f %F %u %U %i %c %k
		}
		args = append(args, f)
	}
	if len(args) == 0 {
		t.Fatalf("Exec=%q names no program", exec)
	}
	return args
}

// TestPackageStartsFromMenu starts the installed binary the way the menu
// does, through the Exec line of the .desktop file with the package's
// /usr/bin first on PATH, under Xvfb and D-Bus: its page must call the
// startup binding (BATON_SMOKE=1 exits 0 only then). "baton version" of the
// installed binary must name this version, a commit and a build date.
func TestPackageStartsFromMenu(t *testing.T) {
	needPackage(t, "xvfb-run", "xauth", "dbus-run-session")
	args := pkgExecArgs(t, pkgDesktopEntry(t)["Exec"])
	bindir := filepath.Join(pkgRoot, "usr/bin")
	env := append(os.Environ(),
		"PATH="+bindir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"XDG_DATA_DIRS="+filepath.Join(pkgRoot, "usr/share")+":/usr/local/share:/usr/share",
		"BATON_CONFIG_DIR="+t.TempDir())

	// The program must resolve to the packaged binary, not one elsewhere on PATH.
	prog := args[0]
	if !filepath.IsAbs(prog) {
		prog = filepath.Join(bindir, prog)
	} else {
		prog = filepath.Join(pkgRoot, prog)
	}
	if info, err := os.Stat(prog); err != nil || info.Mode()&0o111 == 0 {
		t.Fatalf("Exec=%s does not name an executable in the package (%v)", args[0], err)
	}

	ver := exec.Command(prog, "version")
	ver.Env = env
	out, err := ver.CombinedOutput()
	if err != nil {
		t.Fatalf("baton version: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`^baton (\S+) \(commit (\S+), built (\S+)\)\n$`).FindStringSubmatch(string(out))
	if m == nil || m[1] != pkgVersion || m[2] == "unknown" || m[3] == "unknown" {
		t.Errorf("baton version printed %q, want version %s with a commit and a build date", out, pkgVersion)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmdArgs := append([]string{"-a", "-s", "-screen 0 1280x800x24", "dbus-run-session", "--", prog}, args[1:]...)
	cmd := exec.CommandContext(ctx, "xvfb-run", cmdArgs...)
	cmd.Env = append(env, "BATON_SMOKE=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err = cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the installed binary did not exit within 2 minutes; output:\n%s", out)
	}
	if err != nil {
		t.Fatalf("the installed binary failed: %v; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "the page called a binding") {
		t.Fatalf("the installed binary exited 0 without its page calling a binding; output:\n%s", out)
	}
}

// TestPackageTarball checks the tarball: one folder holding the .deb's /usr
// tree (without lintian's overrides), owned by root, with the same files.
func TestPackageTarball(t *testing.T) {
	needPackage(t)
	f, err := os.Open(pkgTarball)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	top := "baton_" + pkgVersion + "_linux_amd64/"
	var files []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(h.Name, top) {
			t.Errorf("%s is outside %s", h.Name, top)
			continue
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want 0:0", h.Name, h.Uid, h.Gid)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		rel := "usr/" + strings.TrimPrefix(h.Name, top)
		files = append(files, rel)
		sum := sha256.New()
		if _, err := io.Copy(sum, tr); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(pkgRoot, rel))
		if err != nil {
			t.Errorf("%s is not in the .deb: %v", h.Name, err)
			continue
		}
		if got := sum.Sum(nil); !bytes.Equal(got, pkgSHA256(want)) {
			t.Errorf("%s differs from the .deb's %s", h.Name, rel)
		}
		if rel == "usr/bin/baton" && h.Mode&0o111 == 0 {
			t.Errorf("%s is not executable (mode %o)", h.Name, h.Mode)
		}
	}
	want := slices.DeleteFunc(pkgExpectedFiles(), func(f string) bool { return strings.HasPrefix(f, "usr/share/lintian/") })
	slices.Sort(files)
	if !slices.Equal(files, want) {
		t.Errorf("the tarball holds\n  %s\nwant\n  %s", strings.Join(files, "\n  "), strings.Join(want, "\n  "))
	}
}

func pkgSHA256(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
