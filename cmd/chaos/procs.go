package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a restartable child process whose output goes to a log file.
type proc struct {
	name string
	path string
	args []string
	env  []string
	log  *os.File

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{}
	paused  bool
	starts  int
	waitErr error
	// asked is set when the harness kills or stops the process; an exit without it counts in
	// unasked.
	asked   bool
	unasked int
	// unaskedErr is how the last exit the harness did not cause ended.
	unaskedErr error
}

func newProc(dir, name, path string, env []string, args ...string) (*proc, error) {
	f, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	return &proc{name: name, path: path, args: args, env: append(os.Environ(), env...), log: f}, nil
}

func (p *proc) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cmd := exec.Command(p.path, p.args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = p.env, p.log, p.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.cmd, p.exited, p.paused, p.asked = cmd, make(chan struct{}), false, false
	p.starts++
	exited := p.exited
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		if !p.asked {
			p.unasked++
			p.unaskedErr = err
		}
		p.mu.Unlock()
		close(exited)
	}()
	return nil
}

// kill SIGKILLs the process and waits for it to be gone.
func (p *proc) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.asked = true
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
}

// pause SIGSTOPs the process; resume SIGCONTs it.
func (p *proc) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !p.paused {
		p.cmd.Process.Signal(syscall.SIGSTOP)
		p.paused = true
	}
}

func (p *proc) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && p.paused {
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.paused = false
	}
}

// stop sends SIGTERM and waits up to grace before killing; it reports whether the process
// exited cleanly on its own.
func (p *proc) stop(grace time.Duration) error {
	p.resume()
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.asked = true
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	select {
	case <-exited:
		return nil
	default:
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.waitErr != nil {
			return fmt.Errorf("%s exited badly on SIGTERM: %v", p.name, p.waitErr)
		}
		return nil
	case <-time.After(grace):
		cmd.Process.Kill()
		<-exited
		return fmt.Errorf("%s did not stop within %s of SIGTERM", p.name, grace)
	}
}

// running reports whether the process is alive (paused counts as alive).
func (p *proc) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// unexpectedExits counts the exits the harness did not cause (a crash, a fatal error) and
// describes the last one: its exit status and the last lines of the log, so a CI run that keeps
// no files still shows why.
func (p *proc) unexpectedExits() (int, string) {
	p.mu.Lock()
	n, err := p.unasked, p.unaskedErr
	p.mu.Unlock()
	if n == 0 {
		return 0, ""
	}
	return n, fmt.Sprintf("last exit: %v; the log ends:\n%s", err, logTail(p.log.Name(), 8))
}

// logTail is the last n lines of the file at path, indented, or why it could not be read.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "    (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "    " + strings.Join(lines, "\n    ")
}

func (p *proc) close() { p.log.Close() }

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitTCP polls addr until it accepts a connection or the deadline passes.
func waitTCP(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not reachable after %s: %w", addr, limit, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
