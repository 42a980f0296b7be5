package view

import (
	"time"

	"github.com/baton-app/baton/backend/remote"
)

// RemoteStatus is remote access as Settings shows it: whether Baton serves
// its window to browsers, where and how (backend/remote.Status).
type RemoteStatus struct {
	Running      bool      `json:"running"`
	Listen       string    `json:"listen"`
	URL          string    `json:"url,omitempty"`
	TLS          bool      `json:"tls"`
	Fingerprint  string    `json:"fingerprint,omitempty"`
	BehindProxy  bool      `json:"behindProxy"`
	Headless     bool      `json:"headless"`
	FromBrowser  bool      `json:"fromBrowser"`
	Browsers     int       `json:"browsers"`
	HasLink      bool      `json:"hasLink"`
	TokenCreated time.Time `json:"tokenCreated,omitzero"`
}

// RemoteLink is a new access link, shown once, with its QR code and the
// status after it was made (backend/remote.Link).
type RemoteLink struct {
	URL    string       `json:"url,omitempty"`
	QR     string       `json:"qr,omitempty"`
	Status RemoteStatus `json:"status"`
}

// RemoteStatusOf is s as the view shows it.
func RemoteStatusOf(s remote.Status) RemoteStatus { return RemoteStatus(s) }

// RemoteLinkOf is l as the view shows it.
func RemoteLinkOf(l remote.Link) RemoteLink {
	return RemoteLink{URL: l.URL, QR: l.QR, Status: RemoteStatusOf(l.Status)}
}
