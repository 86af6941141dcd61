package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// liveness bounds every wait on the program: a guard against a hang, not a
// timing expectation; a healthy run takes a fraction of it.
const liveness = 30 * time.Second

// buildFake builds the program into t.TempDir(), with -race when the tests
// run with it.
func buildFake(t *testing.T) string {
	t.Helper()
	return build(t, raceEnabled)
}

// build builds the program into t.TempDir(), with -race if race.
func build(t *testing.T, race bool) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "petstore-fake")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// fake is a run of the program.
type fake struct {
	cmd    *exec.Cmd
	stdout *lineWriter
	stderr *lineWriter
	done   chan struct{} // closed once it exited and its output is read
}

// startFake starts the program with args, and kills it at the end of the
// test if it is still running. Its environment is the test's without the
// program's own variables (PETSTORE_FAKE_*).
func startFake(t *testing.T, bin string, args ...string) *fake {
	t.Helper()
	return startFakeEnv(t, bin, nil, args...)
}

// startFakeEnv is startFake with env (NAME=value) added to the environment.
func startFakeEnv(t *testing.T, bin string, env []string, args ...string) *fake {
	t.Helper()
	f := &fake{
		cmd:    exec.Command(bin, args...),
		stdout: newLineWriter(),
		stderr: newLineWriter(),
		done:   make(chan struct{}),
	}
	f.cmd.Env = append(environWithout("PETSTORE_FAKE_"), quickExit())
	f.cmd.Env = append(f.cmd.Env, env...)
	f.cmd.Stdout, f.cmd.Stderr = f.stdout, f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		f.cmd.Wait() // the exit status is in f.cmd.ProcessState
		close(f.done)
	}()
	t.Cleanup(func() {
		f.cmd.Process.Kill() // fails harmlessly once it exited
		<-f.done
	})
	return f
}

// environWithout returns the test's environment without the variables
// whose names start with prefix.
func environWithout(prefix string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, prefix) {
			env = append(env, kv)
		}
	}
	return env
}

// quickExit returns the GORACE setting for the programs the tests run. Built
// with -race, a program sleeps 1 s before it exits (the race detector's
// atexit_sleep_ms), which every run of it would add to the tests' time;
// atexit_sleep_ms=0 ends it at once. A race the program runs into still
// fails it (exit status 66). The options already in GORACE come after, so
// they win.
func quickExit() string {
	return "GORACE=" + strings.TrimSpace("atexit_sleep_ms=0 "+os.Getenv("GORACE"))
}

// exports waits for the two export lines and returns the values they set.
func (f *fake) exports(t *testing.T) (baseURL, key string) {
	t.Helper()
	timer := time.NewTimer(liveness)
	defer timer.Stop()
	select {
	case <-f.stdout.twoLines:
	case <-f.done:
		t.Fatalf("petstore-fake exited (%v) before printing two lines; stdout %q, stderr:\n%s",
			f.cmd.ProcessState, f.stdout.Lines(), f.stderr.String())
	case <-timer.C:
		t.Fatalf("petstore-fake printed no two lines in %v; stdout %q, stderr:\n%s", liveness, f.stdout.Lines(), f.stderr.String())
	}
	lines := f.stdout.Lines()
	m1 := regexp.MustCompile(`^export PETSTORE_BASE_URL=(http://127\.0\.0\.1:[1-9][0-9]*/v1)$`).FindStringSubmatch(lines[0])
	m2 := regexp.MustCompile(`^export PETSTORE_API_KEY=([A-Za-z0-9_.+/=-]+)$`).FindStringSubmatch(lines[1])
	if m1 == nil || m2 == nil {
		t.Fatalf("stdout lines %q, want export PETSTORE_BASE_URL=http://127.0.0.1:<port>/v1 and export PETSTORE_API_KEY=<key>", lines[:2])
	}
	return m1[1], m2[1]
}

// signal sends sig to the program.
func (f *fake) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no signals to send on Windows")
	}
	if err := f.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the program to exit and returns its exit code.
func (f *fake) wait(t *testing.T) int {
	t.Helper()
	timer := time.NewTimer(liveness)
	defer timer.Stop()
	select {
	case <-f.done:
	case <-timer.C:
		t.Fatalf("petstore-fake did not exit in %v; stderr:\n%s", liveness, f.stderr.String())
	}
	return f.cmd.ProcessState.ExitCode()
}

// requestLine is a request's line on stderr; the request is its group.
var requestLine = regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{6} ([A-Z]+ \S+ (?:\d{3}|- \((?:client gone|dropped)\))) \d\S*s$`)

// requests returns the requests logged on stderr, as "GET /v1/pets 200"
// (with -log text).
func (f *fake) requests() []string {
	var reqs []string
	for _, l := range f.stderr.Lines() {
		if m := requestLine.FindStringSubmatch(l); m != nil {
			reqs = append(reqs, m[1])
		}
	}
	return reqs
}

// lineWriter is an io.Writer that keeps what it is given as lines.
type lineWriter struct {
	mu       sync.Mutex
	text     strings.Builder
	twoLines chan struct{} // closed once two lines are complete
	closed   bool
}

func newLineWriter() *lineWriter {
	return &lineWriter{twoLines: make(chan struct{})}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text.Write(p)
	if !w.closed && strings.Count(w.text.String(), "\n") >= 2 {
		close(w.twoLines)
		w.closed = true
	}
	return len(p), nil
}

// Lines returns the complete lines written so far, and the incomplete last
// one if any.
func (w *lineWriter) Lines() []string {
	s := w.String()
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}
