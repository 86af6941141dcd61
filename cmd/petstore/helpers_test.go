package main

import (
	"bufio"
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// bins holds the programs the tests build once: petstore and petstore-fake.
var bins struct {
	once      sync.Once
	cli, fake string
	err       error
}

// TestMain removes the programs the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if bins.cli != "" {
		os.RemoveAll(filepath.Dir(bins.cli))
	}
	os.Exit(code)
}

// programs builds petstore and petstore-fake, once for all tests, with -race
// when the tests run with it.
func programs(t *testing.T) (cli, fake string) {
	t.Helper()
	bins.once.Do(func() {
		dir, err := os.MkdirTemp("", "petstore-cli-test")
		if err != nil {
			bins.err = err
			return
		}
		exe := ""
		if runtime.GOOS == "windows" {
			exe = ".exe"
		}
		bins.cli, bins.fake = filepath.Join(dir, "petstore"+exe), filepath.Join(dir, "petstore-fake"+exe)
		// One go build for both, which links them side by side; -o with a
		// directory names each program for its package's directory.
		args := []string{"build", "-o", dir + string(filepath.Separator)}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, ".", "../petstore-fake")...).CombinedOutput(); err != nil {
			bins.err = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	return bins.cli, bins.fake
}

// result is what a run of the program did.
type result struct {
	code           int
	stdout, stderr string
}

// cleanEnv is the environment of the tests' programs: this process's,
// without the variables the SDK reads and without proxies, and with
// quickExit's GORACE.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "PETSTORE_API_KEY", "PETSTORE_BASE_URL", "PETSTORE_INSECURE_HTTP",
			"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "REQUEST_METHOD":
			continue
		}
		env = append(env, kv)
	}
	return append(env, quickExit())
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

// runCLI runs petstore with args and the environment variables env
// ("NAME=value") added to cleanEnv's.
func runCLI(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cli, _ := programs(t)
	cmd := exec.Command(cli, args...)
	cmd.Env = append(cleanEnv(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("petstore %q: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

// proxy is a forward proxy that records the hosts requests were for: a
// CONNECT (for https) is refused with 403, a plain http request answered
// with an empty list. Through it, a test sees where the program would have
// gone without leaving loopback.
type proxy struct {
	*httptest.Server
	mu    sync.Mutex
	hosts []string
}

func newProxy(t *testing.T) *proxy {
	t.Helper()
	p := &proxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.hosts = append(p.hosts, r.Method+" "+r.Host)
	p.mu.Unlock()
	if r.Method == http.MethodConnect {
		http.Error(w, "no", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("[]"))
}

// seen returns the requests the proxy received, as "METHOD host".
func (p *proxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hosts...)
}

// env returns the variables that send the program's requests through p.
func (p *proxy) env() []string {
	return []string{"HTTPS_PROXY=" + p.URL, "HTTP_PROXY=" + p.URL}
}

// newServer starts an http server on loopback with h and returns its base
// URL, with /v1.
func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s.URL + "/v1"
}

// startFakeProgram starts petstore-fake, the program, on a free loopback
// port with args, stops it when the test ends, and returns the two
// variables it exports (PETSTORE_BASE_URL and PETSTORE_API_KEY), as
// NAME=value: it prints them once it accepts connections.
func startFakeProgram(t *testing.T, args ...string) []string {
	t.Helper()
	_, fakeBin := programs(t)
	fake := exec.Command(fakeBin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	fake.Env = cleanEnv()
	out, err := fake.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fake.Process.Kill(); fake.Wait() })
	var env []string
	sc := bufio.NewScanner(out)
	for len(env) < 2 && sc.Scan() { // export NAME='value'
		kv := strings.TrimPrefix(sc.Text(), "export ")
		env = append(env, strings.ReplaceAll(kv, "'", "")) // neither holds a quote
	}
	if len(env) != 2 {
		t.Fatalf("petstore-fake printed %q, want two export lines", env)
	}
	return env
}
