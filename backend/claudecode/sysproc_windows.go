package claudecode

import (
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// jobs holds the Job object of each running child, by process id.
var jobs sync.Map // int → windows.Handle

// attachChild puts a started child in a Job object of its own that kills
// every process in it when it is closed: the CLI and the tools it starts
// end together (signalGroup), and with Baton, whose exit closes the handle.
// The child is put in the job right after it started: a process it starts
// in that first instant stays outside (Go cannot start it suspended).
func attachChild(cmd *exec.Cmd) error {
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
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("open the child process: %w", err)
	}
	defer windows.CloseHandle(proc)
	if err := windows.AssignProcessToJobObject(job, proc); err != nil {
		_ = windows.CloseHandle(job)
		return fmt.Errorf("put the child in its job object: %w", err)
	}
	jobs.Store(cmd.Process.Pid, job)
	return nil
}

// signalGroup ends the child and every process of its Job object; Windows
// has no SIGTERM to send first, so only kill does anything.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil || !kill {
		return
	}
	if job, ok := jobs.LoadAndDelete(cmd.Process.Pid); ok {
		_ = windows.TerminateJobObject(job.(windows.Handle), 1)
		_ = windows.CloseHandle(job.(windows.Handle))
		return
	}
	_ = cmd.Process.Kill()
}
