// Package remote serves Baton's window in a browser, for a phone or
// another computer: the same built frontend, the window's bindings as JSON
// calls (POST /api/call/NAME, read by reflection from the binding object
// Wails binds, so there is no second API), and Baton's events over a
// WebSocket (/api/events). A small bridge script, added to the page,
// provides window.go.main.App and window.runtime as the Wails window does.
//
// Its one rule: nothing is served without the cookie of the access token in
// force. The token (256 random bits) is shown once, as a link, and
// exchanged at /login for an HttpOnly, SameSite=Strict cookie; only the
// hashes of both are kept (remote.json). Replacing the token signs every
// browser out. Failed attempts are counted per client address, limited and
// logged; the WebSocket and the calls refuse another site's Origin. It
// listens on loopback unless told otherwise, and beyond loopback only with
// TLS (a self-signed certificate made once, its fingerprint shown) or
// behind a proxy that provides it.
//
// The access link's QR code is drawn by github.com/skip2/go-qrcode: the most
// used QR encoder in Go, MIT-licensed, without dependencies, a complete
// implementation of a standard that does not change; it draws the PNG for
// Settings and the half-block text for a terminal.
package remote
