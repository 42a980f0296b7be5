package view

import (
	"github.com/baton-app/baton/backend/desktop"
	"github.com/baton-app/baton/backend/doctor"
	"github.com/baton-app/baton/backend/hosts"
	"github.com/baton-app/baton/backend/permrules"
	"github.com/baton-app/baton/backend/settings"
)

// What the Settings view and the About box show: the settings and how they
// are used, the kinds of session host, the host test's report and the state
// of the connection.

// AppInfo is what the window shows about this build.
type AppInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	Platform  string `json:"platform"`
}

// Settings are the user's choices; the JSON names are settings.json's keys.
type Settings struct {
	// Host is the name of a HostKind.
	Host           string `json:"host"`
	CDPEndpoint    string `json:"cdpEndpoint"`
	AllowRemoteCDP bool   `json:"allowRemoteCdp"`
	PagePattern    string `json:"pagePattern"`
	ChromePath     string `json:"chromePath"`
	Headless       bool   `json:"headless"`
	PollIntervalMs int    `json:"pollIntervalMs"`
	Notifications  bool   `json:"notifications"`
	// Theme is "system", "light" or "dark".
	Theme                string   `json:"theme"`
	RecentFolders        []string `json:"recentFolders"`
	ClaudePath           string   `json:"claudePath"`
	ReconnectForSeconds  int      `json:"reconnectForSeconds"`
	AutoResumeAfterLimit bool     `json:"autoResumeAfterLimit"`
	// Permissions are the user's permission rules for every run.
	Permissions PermissionRules `json:"permissions"`
}

// PermissionRules are allow and deny rules in Claude Code's syntax
// (Bash(go test:*), Edit(docs/**)); deny wins.
type PermissionRules struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// PermissionRulesOf is the view of rule lists.
func PermissionRulesOf(l permrules.Lists) PermissionRules {
	return PermissionRules{Allow: l.Allow, Deny: l.Deny}
}

// Lists is the permrules form of the rules.
func (p PermissionRules) Lists() permrules.Lists {
	return permrules.Lists{Allow: p.Allow, Deny: p.Deny}
}

// SettingsView is what the Settings view shows: the settings in force, and
// why settings.json could not be used, if it could not.
type SettingsView struct {
	Settings Settings `json:"settings"`
	Path     string   `json:"path"`
	Problem  string   `json:"problem,omitempty"`
	// StartAdvice says how to start Claude Desktop with its DevTools port on
	// this platform.
	StartAdvice string `json:"startAdvice"`
	// Programs are the host kinds that run a program of this machine (the
	// Claude Code CLI): its version while the kind is in use, where it is
	// installed while another is.
	Programs []HostProgram `json:"programs"`
}

// HostProgram is what Baton found of the program of one host kind.
type HostProgram struct {
	// Host names the HostKind; Label is how the UI names it.
	Host  string `json:"host"`
	Label string `json:"label"`
	// InUse: the kind is the one the settings choose.
	InUse bool `json:"inUse"`
	// Path is the program, found while another kind is in use.
	Path string `json:"path,omitempty"`
	// Version is its version, or Problem why it cannot be used (in use).
	Version string `json:"version,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// HostKind is one kind of session host the settings can choose.
type HostKind struct {
	// Name is the value of the host setting that chooses it.
	Name        string `json:"name"`
	Label       string `json:"label"`
	Description string `json:"description"`
	// Fields are the settings (settings.json keys) it reads.
	Fields []string `json:"fields"`
}

// HostStatus is the state of the connection to the session host.
type HostStatus struct {
	Host     string `json:"host"`
	Label    string `json:"label"`
	State    string `json:"state"`
	Reason   string `json:"reason,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	Page     string `json:"page,omitempty"`
}

// DoctorReport is a host kind's diagnosis, as Test connection shows it.
type DoctorReport struct {
	Host    string        `json:"host"`
	Label   string        `json:"label"`
	Target  string        `json:"target"`
	Version string        `json:"version"`
	Checks  []DoctorCheck `json:"checks"`
	Lists   []DoctorList  `json:"lists"`
	OK      bool          `json:"ok"`
	Verdict string        `json:"verdict,omitempty"`
}

// DoctorCheck is one line of a report; Fix says how to fix a failed check.
type DoctorCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// DoctorList is a titled list of findings.
type DoctorList struct {
	Title string       `json:"title"`
	Items []DoctorItem `json:"items"`
}

// DoctorItem is one finding of a list.
type DoctorItem struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
}

// AppInfoOf is the view of what the window shows about this build.
func AppInfoOf(i desktop.Info) AppInfo { return AppInfo(i) }

// SettingsOf is the view of the settings.
func SettingsOf(s settings.Settings) Settings {
	return Settings{
		Host: string(s.Host), CDPEndpoint: s.CDPEndpoint, AllowRemoteCDP: s.AllowRemoteCDP, PagePattern: s.PagePattern,
		ChromePath: s.ChromePath, Headless: s.Headless, PollIntervalMs: s.PollIntervalMs, Notifications: s.Notifications,
		Theme: string(s.Theme), RecentFolders: s.RecentFolders, ClaudePath: s.ClaudePath,
		ReconnectForSeconds: s.ReconnectForSeconds, AutoResumeAfterLimit: s.AutoResumeAfterLimit,
		Permissions: PermissionRulesOf(s.Permissions),
	}
}

// FileSettings is the settings package's form of the settings a face sends.
func FileSettings(s Settings) settings.Settings {
	return settings.Settings{
		Host: settings.Host(s.Host), CDPEndpoint: s.CDPEndpoint, AllowRemoteCDP: s.AllowRemoteCDP, PagePattern: s.PagePattern,
		ChromePath: s.ChromePath, Headless: s.Headless, PollIntervalMs: s.PollIntervalMs, Notifications: s.Notifications,
		Theme: settings.Theme(s.Theme), RecentFolders: s.RecentFolders, ClaudePath: s.ClaudePath,
		ReconnectForSeconds: s.ReconnectForSeconds, AutoResumeAfterLimit: s.AutoResumeAfterLimit,
		Permissions: s.Permissions.Lists(),
	}
}

// HostProgramsOf is the view of what the registry found of its program
// kinds: an empty list (not null) when there are none.
func HostProgramsOf(found []hosts.Found) []HostProgram {
	out := make([]HostProgram, 0, len(found))
	for _, f := range found {
		out = append(out, HostProgram{Host: string(f.Host), Label: f.Label, InUse: f.InUse, Path: f.Path, Version: f.Version, Problem: f.Problem})
	}
	return out
}

// HostKindsOf is the view of the registered host kinds, in their order.
func HostKindsOf(kinds []hosts.Kind) []HostKind {
	out := make([]HostKind, 0, len(kinds))
	for _, k := range kinds {
		info := k.Info()
		fields := info.Fields
		if fields == nil {
			fields = []string{}
		}
		out = append(out, HostKind{Name: string(info.Name), Label: info.Label, Description: info.Description, Fields: fields})
	}
	return out
}

// HostStatusOf is the view of the connection's state.
func HostStatusOf(s hosts.Status) HostStatus {
	return HostStatus{Host: string(s.Host), Label: s.Label, State: string(s.State), Reason: s.Reason, Endpoint: s.Endpoint, Page: s.Page}
}

// DoctorReportOf is the view of a host kind's diagnosis.
func DoctorReportOf(r doctor.Report) DoctorReport {
	return DoctorReport{
		Host: r.Host, Label: r.Label, Target: r.Target, Version: r.Version, OK: r.OK, Verdict: r.Verdict,
		Checks: mapAll(r.Checks, func(c doctor.Check) DoctorCheck { return DoctorCheck(c) }),
		Lists: mapAll(r.Lists, func(l doctor.List) DoctorList {
			return DoctorList{Title: l.Title, Items: mapAll(l.Items, func(i doctor.Item) DoctorItem { return DoctorItem(i) })}
		}),
	}
}
