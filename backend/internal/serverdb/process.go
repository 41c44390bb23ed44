package serverdb

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// Credential returns the credential of the OS user name when this process
// is root (database servers refuse to run as root), nil otherwise.
func Credential(name string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root needs an OS user named %s to run the server: %w", name, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: uid %q: %w", name, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("user %s: gid %q: %w", name, u.Gid, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// Command builds a command for a server binary at path, run in dir with a
// C locale and env added, as cred's user (with HOME=dir and that user's
// name) when cred is not nil. Setting the credential directly, instead of
// wrapping in runuser, keeps the server our direct child, so signals and
// Pdeathsig reach it.
func Command(dir string, cred *syscall.Credential, username, path string, args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "LANG=C"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if cred != nil {
		cmd.Env = append(cmd.Env, "HOME="+dir, "USER="+username, "LOGNAME="+username)
	}
	return cmd
}

// Alive reports whether a process with this pid exists (it may belong to
// another user).
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Tail is the last n bytes of b, for quoting a log in an error.
func Tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
