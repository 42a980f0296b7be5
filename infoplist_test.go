package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"html/template"
	"os"
	"regexp"
	"strings"
	"testing"
	ttemplate "text/template"
)

// wailsProject is the part of wails.json that Wails gives the templates in
// build/darwin (its assetData: Name, Info, OutputFilename).
type wailsProject struct {
	Name           string `json:"name"`
	OutputFilename string `json:"outputfilename"`
	Info           struct {
		CompanyName      string `json:"companyName"`
		ProductName      string `json:"productName"`
		ProductVersion   string `json:"productVersion"`
		Copyright        string `json:"copyright"`
		Comments         string `json:"comments"`
		FileAssociations []struct {
			Ext, Name, Role, IconName string
		} `json:"fileAssociations"`
		Protocols []struct {
			Scheme, Role string
		} `json:"protocols"`
	} `json:"info"`
}

// plistValue is one value of a property list's top-level dictionary.
type plistValue struct {
	Kind string // string, true, false, dict, array, ...
	Text string
}

// renderPlist fills a build/darwin template the way Wails v2 does (same
// functions: xml, safeBundleID) and parses the top-level dictionary.
func renderPlist(t *testing.T, file string, p wailsProject) map[string]plistValue {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	funcs := ttemplate.FuncMap{
		"xml": func(s string) string {
			var b bytes.Buffer
			template.HTMLEscape(&b, []byte(s))
			return b.String()
		},
		"safeBundleID": func(s string) string {
			return strings.Trim(strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(s, "-")), "-")
		},
	}
	tmpl, err := ttemplate.New(file).Funcs(funcs).Option("missingkey=error").Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, p); err != nil {
		t.Fatalf("%s: %v", file, err)
	}

	dec := xml.NewDecoder(&out)
	dec.Strict = true
	values := map[string]plistValue{}
	depth := 0 // 1 inside <plist>, 2 inside the top-level <dict>
	key := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("%s is not well-formed XML once rendered: %v\n%s", file, err, out.String())
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch {
			case depth < 2:
				want := []string{"plist", "dict"}[depth]
				if el.Name.Local != want {
					t.Fatalf("%s: <%s> where <%s> belongs", file, el.Name.Local, want)
				}
				depth++
			case el.Name.Local == "key":
				var k string
				if err := dec.DecodeElement(&k, &el); err != nil {
					t.Fatal(err)
				}
				if _, dup := values[k]; dup {
					t.Errorf("%s: key %s twice", file, k)
				}
				key = k
			default:
				if key == "" {
					t.Fatalf("%s: <%s> without a key", file, el.Name.Local)
				}
				var v struct {
					Inner string `xml:",innerxml"`
				}
				if err := dec.DecodeElement(&v, &el); err != nil {
					t.Fatal(err)
				}
				values[key] = plistValue{Kind: el.Name.Local, Text: v.Inner}
				key = ""
			}
		case xml.EndElement:
			if depth == 2 && el.Name.Local == "dict" {
				depth = 3
			}
		}
	}
	if key != "" {
		t.Errorf("%s: key %s has no value", file, key)
	}
	return values
}

// TestDarwinInfoPlist checks what a macOS .app built by "wails build" gets:
// the bundle's keys, its identifier, executable and icon, and the version of
// the Makefile (which wails.json must repeat).
func TestDarwinInfoPlist(t *testing.T) {
	data, err := os.ReadFile("wails.json")
	if err != nil {
		t.Fatal(err)
	}
	var p wailsProject
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^VERSION\s*:=\s*(\S+)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("the Makefile sets no VERSION")
	}
	if p.Info.ProductVersion != string(m[1]) {
		t.Errorf("wails.json productVersion %q, the Makefile's VERSION %q", p.Info.ProductVersion, m[1])
	}

	for _, file := range []string{"build/darwin/Info.plist", "build/darwin/Info.dev.plist"} {
		v := renderPlist(t, file, p)
		want := map[string]plistValue{
			"CFBundlePackageType":           {"string", "APPL"},
			"CFBundleName":                  {"string", "Baton"},
			"CFBundleDisplayName":           {"string", "Baton"},
			"CFBundleExecutable":            {"string", "baton"},
			"CFBundleIdentifier":            {"string", "io.github.baton-app.baton"},
			"CFBundleInfoDictionaryVersion": {"string", "6.0"},
			"CFBundleVersion":               {"string", string(m[1])},
			"CFBundleShortVersionString":    {"string", string(m[1])},
			"CFBundleIconFile":              {"string", "iconfile"},
			"LSApplicationCategoryType":     {"string", "public.app-category.developer-tools"},
			"NSHighResolutionCapable":       {"true", ""},
		}
		for k, w := range want {
			if got, ok := v[k]; !ok {
				t.Errorf("%s: no %s", file, k)
			} else if got != w {
				t.Errorf("%s: %s is <%s>%s, want <%s>%s", file, k, got.Kind, got.Text, w.Kind, w.Text)
			}
		}
		if !regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}$`).MatchString(v["CFBundleShortVersionString"].Text) {
			t.Errorf("%s: CFBundleShortVersionString %q is not up to three numbers", file, v["CFBundleShortVersionString"].Text)
		}
		if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(v["LSMinimumSystemVersion"].Text) {
			t.Errorf("%s: LSMinimumSystemVersion %q", file, v["LSMinimumSystemVersion"].Text)
		}
		if v["NSHumanReadableCopyright"].Text == "" {
			t.Errorf("%s: no copyright", file)
		}
	}
}
