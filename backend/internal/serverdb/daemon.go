package serverdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Daemon says how to run one kind of database server process.
type Daemon struct {
	// Name is the server binary's name, for messages ("postgres").
	Name string
	// Quit asks the server for a clean shutdown; the server also gets it
	// when this process dies (Pdeathsig) unless it was detached.
	Quit syscall.Signal
	// Kill ends a server that did not become ready, or did not stop
	// within Grace after Quit.
	Kill  syscall.Signal
	Grace time.Duration
}

// Proc is the server process this process started in the foreground, if
// any. Its zero value is no process.
type Proc struct {
	cmd  *exec.Cmd     // the server while this process owns it
	done chan struct{} // closed when the started server has exited
}

// Owned reports whether Stop would signal a process this process owns.
func (p *Proc) Owned() bool { return p.cmd != nil }

// Start starts cmd as d and waits (up to a minute) until ready succeeds.
// With detach the server gets its own session and outlives this process
// (p then no longer owns it); without, it gets d.Quit when this process
// dies. If it does not become ready it is killed, and the error quotes the
// end of the log at logPath.
func (p *Proc) Start(ctx context.Context, d Daemon, cmd *exec.Cmd, detach bool, ready func(context.Context) error, logPath string) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if detach {
		cmd.SysProcAttr.Setsid = true
	} else {
		// Stop the server if this process dies without calling Stop,
		// e.g. when go test kills a hung test binary.
		cmd.SysProcAttr.Pdeathsig = d.Quit
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", d.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
	if err := p.WaitReady(ctx, d, 60*time.Second, ready); err != nil {
		_ = cmd.Process.Signal(d.Kill)
		<-done
		p.cmd, p.done = nil, nil
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("%s did not become ready: %w\n%s", d.Name, err, Tail(log, 2000))
	}
	if detach {
		p.cmd = nil // the server is on its own now
	}
	return nil
}

// WaitReady calls ready every 100 ms until it succeeds, limit passes, ctx
// ends or the server p started exits.
func (p *Proc) WaitReady(ctx context.Context, d Daemon, limit time.Duration, ready func(context.Context) error) error {
	deadline := time.Now().Add(limit)
	var lastErr error
	for time.Now().Before(deadline) {
		if p.done != nil {
			select {
			case <-p.done:
				return errors.New(d.Name + " exited")
			default:
			}
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		lastErr = ready(cctx)
		cancel()
		if lastErr == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(100 * time.Millisecond)
	}
	return lastErr
}

// Stop sends the owned server d.Quit and waits for it to exit, sending
// d.Kill after d.Grace. It does nothing when p owns no server.
func (p *Proc) Stop(d Daemon) {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(d.Quit)
	select {
	case <-p.done:
	case <-time.After(d.Grace):
		_ = p.cmd.Process.Signal(d.Kill)
		<-p.done
	}
	p.cmd = nil
}

// OnFreePort calls start with port or, when port is 0, with a free
// loopback port, trying another free port up to three times in all: a
// free port is only free until someone else takes it.
func OnFreePort(port int, start func(port int) error) error {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p := port
		if p == 0 {
			var err error
			if p, err = FreePort(); err != nil {
				return err
			}
		}
		if lastErr = start(p); lastErr == nil || port != 0 {
			return lastErr
		}
	}
	return lastErr
}

// Listen starts a server with start on port or, when port is 0, on free
// loopback ports until one works (OnFreePort), setting *at to each port
// before start tries it; pkg names the helper package in the error.
func Listen(pkg string, port int, at *int, start func() error) error {
	err := OnFreePort(port, func(p int) error {
		*at = p
		return start()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return nil
}

// MakeDir creates dir (mode 0700) and,
// when cred is not nil, gives it to that user (owner names it in errors).
func MakeDir(dir string, cred *syscall.Credential, owner string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fmt.Errorf("chown %s to %s: %w", dir, owner, err)
		}
	}
	return nil
}

// OwnDir makes dir absolute and creates it for the OS user (Credential,
// MakeDir) that runs a server in it: the first step of starting one.
func OwnDir(dir, user string) (abs string, cred *syscall.Credential, err error) {
	if abs, err = filepath.Abs(dir); err != nil {
		return "", nil, fmt.Errorf("server directory: %w", err)
	}
	if cred, err = Credential(user); err != nil {
		return "", nil, err
	}
	if err := MakeDir(abs, cred, user); err != nil {
		return "", nil, err
	}
	return abs, cred, nil
}
