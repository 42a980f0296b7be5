package console

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/baton-app/baton/backend/remote"
	"github.com/baton-app/baton/backend/service"
)

const serveUsage = "baton serve [--listen HOST:PORT] [--behind-proxy] [--new-link]"

const serveDetails = `Baton's window in a browser, for a phone or another computer: the same
views, the Inbox's allow, deny and answers, served from this process with the
runs it drives (and those that were going when Baton last stopped).

Nothing is served without the access link: a random token, shown once, that a
browser exchanges for a cookie. The first "baton serve" makes it; later ones
keep it, so browsers stay signed in. --new-link makes a new one and signs every
browser out (a lost phone). Only its hash is kept, in remote.json in Baton's
configuration directory.

By default Baton listens on loopback (reach it over an SSH tunnel, or from a
proxy on this machine). Any other address serves HTTPS with a self-signed
certificate made once and kept in the configuration directory; check that
your browser shows its fingerprint. With --behind-proxy, a reverse proxy in
front of Baton provides HTTPS and Baton serves plain HTTP on any address.`

type serveOptions struct {
	listen      *string
	behindProxy *bool
	newLink     *bool
}

func serveFlagSet() (*flag.FlagSet, *serveOptions) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs, &serveOptions{
		listen:      fs.String("listen", remote.DefaultListen, "the address to serve on; beyond loopback, HTTPS"),
		behindProxy: fs.Bool("behind-proxy", false, "a reverse proxy in front of Baton provides HTTPS: serve plain HTTP on any address"),
		newLink:     fs.Bool("new-link", false, "make a new access link, signing every browser out"),
	}
}

// ServeCLI is "baton serve": Baton's window for browsers, until
// interrupted.
func ServeCLI(b Build, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, b, args, stdout, stderr)
}

func serve(ctx context.Context, b Build, args []string, stdout, stderr io.Writer) int {
	flags, o := serveFlagSet()
	if err := flags.Parse(args); err != nil {
		fmt.Fprintf(stderr, "baton serve: %v\nusage: %s\n", err, serveUsage)
		return ExitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "baton serve takes no arguments.\nusage: %s\n", serveUsage)
		return ExitUsage
	}
	if b.Bindings == nil || b.Frontend == nil {
		fmt.Fprintln(stderr, "baton serve: this build of Baton has no window to serve.")
		return ExitError
	}
	if _, err := fs.Stat(b.Frontend, "index.html"); err != nil {
		fmt.Fprintln(stderr, "baton serve: this build of Baton has no frontend built into it: build it with \"make build\".")
		return ExitError
	}
	dir, err := remote.DefaultDir()
	if err != nil {
		fmt.Fprintf(stderr, "baton serve: %v.\n", err)
		return ExitError
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	access, err := remote.NewAccess(remote.AccessOptions{Dir: dir, Assets: b.Frontend, Logger: logger, Headless: true})
	if err != nil {
		fmt.Fprintf(stderr, "baton serve: remote access: %v.\n", err)
		return ExitError
	}
	svc, err := service.Open(service.Options{Logger: logger, Inbox: true})
	if err != nil {
		var oe *service.OpenError
		if errors.As(err, &oe) {
			fmt.Fprintf(stderr, "baton serve: Baton could not %s: %v.\n", oe.Stage, oe.Err)
		} else {
			fmt.Fprintf(stderr, "baton serve: %v.\n", err)
		}
		return ExitError
	}
	defer closeServices(svc, stderr)
	bindings, err := remote.NewBindings(b.Bindings(svc, access))
	if err != nil {
		fmt.Fprintf(stderr, "baton serve: %v.\n", err)
		return ExitError
	}
	access.Serve(bindings)
	svc.Events.Subscribe(access.Emit)

	link, err := access.Start(*o.listen, *o.behindProxy)
	if errors.Is(err, remote.ErrNeedsTLS) || errors.Is(err, remote.ErrBadListen) {
		fmt.Fprintf(stderr, "baton serve: %v.\n", err)
		return ExitUsage
	}
	if err != nil {
		fmt.Fprintf(stderr, "baton serve: Baton could not serve: %v.\n", err)
		return ExitError
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := access.Stop(cctx); err != nil {
			fmt.Fprintf(stderr, "baton serve: while stopping: %v\n", err)
		}
	}()
	if *o.newLink && link.URL == "" {
		if link, err = access.NewLink(); err != nil {
			fmt.Fprintf(stderr, "baton serve: %v.\n", err)
			return ExitError
		}
	}
	// Runs that were going when Baton last stopped go on.
	svc.Restore()
	printServing(stdout, link)
	<-ctx.Done()
	fmt.Fprintln(stdout, "Baton stops serving.")
	return ExitOK
}

// printServing says where Baton serves, and the access link when it was
// just made (the only time it is shown).
func printServing(w io.Writer, link remote.Link) {
	st := link.Status
	fmt.Fprintf(w, "Baton serves its window at %s\n", st.URL)
	if st.TLS {
		fmt.Fprintf(w, "HTTPS with a self-signed certificate: your browser warns about it; check that it shows this SHA-256 fingerprint:\n  %s\n", st.Fingerprint)
	}
	if st.BehindProxy {
		fmt.Fprintln(w, "Behind your proxy: open the same path at the proxy's address.")
	}
	if link.URL == "" {
		fmt.Fprintln(w, "Browsers signed in before stay signed in. To sign in another one, run \"baton serve --new-link\" (this signs every browser out).")
	} else {
		fmt.Fprintf(w, "Open this link once in each browser to sign it in; it is shown only now:\n  %s\n", link.URL)
		if isTerminal(w) {
			if qr, err := remote.TerminalQR(link.URL); err == nil {
				fmt.Fprint(w, qr)
			}
		}
	}
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
}
