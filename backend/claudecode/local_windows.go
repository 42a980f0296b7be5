package claudecode

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// group is the Job object that holds the child and what it starts.
type group struct {
	mu  sync.Mutex
	job windows.Handle // 0 when none (not attached, or ended)
}

// attach puts a started child in a Job object of its own that kills every
// process in it when it is closed: the CLI and the tools it starts end
// together (End), and with Baton, whose exit closes the handle. The child
// is put in the job right after it started: a process it starts in that
// first instant stays outside (Go cannot start it suspended).
func (p *localProcess) attach() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("set up the job object: %w", err)
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("open the child process: %w", err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("put the child in its job object: %w", err)
	}
	p.mu.Lock()
	p.job = job
	p.mu.Unlock()
	return nil
}

// End implements Process: it ends the child and every process of its Job
// object; Windows has no SIGTERM to send first, so only kill does anything.
func (p *localProcess) End(kill bool) {
	if p.cmd.Process == nil || !kill {
		return
	}
	p.mu.Lock()
	job := p.job
	p.job = 0
	p.mu.Unlock()
	if job != 0 {
		_ = windows.TerminateJobObject(job, 1)
		_ = windows.CloseHandle(job)
		return
	}
	_ = p.cmd.Process.Kill()
}
