package claudecode

import (
	"bytes"
	"context"
	"io"
)

// A Launcher runs the claude CLI somewhere. Local runs it on this machine;
// a later host kind runs it on another one (over ssh -T) and reuses all of
// the host's code. Everything the host does on the CLI's machine goes
// through it: finding the binary, starting a process in a folder with an
// environment and pipes, ending it together with the tools it started, and
// asking whether the CLI keeps a conversation there or a folder is there.
type Launcher interface {
	// Find returns the claude binary to run: path itself when it is given
	// (it must be there), else "claude" on PATH.
	Find(path string) (string, error)
	// Start starts c. When ctx is done the process and every process it
	// started are killed.
	Start(ctx context.Context, c Command) (Process, error)
	// HasConversation reports whether the CLI, run with env, keeps the
	// conversation uuid on disk (it resumes it with --resume).
	HasConversation(env []string, uuid string) bool
	// CheckDir returns nil when dir is a folder on the CLI's machine, else
	// an error that says why not.
	CheckDir(ctx context.Context, dir string) error
}

// Command is one process to start.
type Command struct {
	// Path is the binary, as Launcher.Find returned it.
	Path string
	Args []string
	// Dir is the working folder; the launcher's own when empty.
	Dir string
	// Env is the whole environment (KEY=VALUE).
	Env []string
	// Stdout receives the output when set (else Process.Stdout reads it),
	// Stderr the error output (discarded when nil); both are written to
	// from another goroutine until Process.Wait returns.
	Stdout io.Writer
	Stderr io.Writer
}

// Process is a started process.
type Process interface {
	// Stdin is its input; closing it ends the input.
	Stdin() io.WriteCloser
	// Stdout is its output (nil when Command.Stdout took it). Read it to
	// the end before calling Wait.
	Stdout() io.Reader
	// End asks the process and every process it started to end (SIGTERM;
	// nothing on Windows), or kills them all when kill is true. Ending a
	// process that is gone does nothing.
	End(kill bool)
	// Wait waits for the process to exit.
	Wait() error
	// PID is its process id (of the local end, for a remote launcher).
	PID() int
}

// Lowerer is a Process that can run at a lower CPU priority from now on,
// with every process it started (Local on Unix: its process group's nice
// value). A nice value only grows: a lower one than the process has does
// nothing (an unprivileged process cannot take it back). The host lowers a
// child to WorkingNice once it has taken its first message, and to
// EndingNice when it ends it.
type Lowerer interface {
	Lower(nice int)
}

// run starts c through l with no input and returns what it wrote to
// stdout once it exited.
func run(ctx context.Context, l Launcher, c Command) ([]byte, error) {
	var out bytes.Buffer
	c.Stdout = &out
	p, err := l.Start(ctx, c)
	if err != nil {
		return nil, err
	}
	_ = p.Stdin().Close()
	err = p.Wait()
	p.End(true) // what it started ends with it
	return out.Bytes(), err
}
