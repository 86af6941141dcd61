//go:build unix

package petstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/version"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// blockLiveness bounds one shell block's run: a guard against a hang, not a
// timing expectation (a block builds a program or two; most take seconds).
const blockLiveness = 10 * time.Minute

// TestShellBlocks runs every shell block (```sh) of the README, docs/*.md and
// the programs' READMEs as written, with bash -e, or checks the marker beside
// it (an HTML comment on the line before the fence) that says why it is not
// run here:
//
//	<!-- needs: WHAT -->          not run: it needs WHAT (docker, a release, valgrind, minutes, ...)
//	<!-- is: ci -->               what CI runs: each line is .ci/run's (bash .ci/run itself, or a
//	                              command of it without its VAR=value prefixes and -count=1)
//	<!-- run: new module -->      run in an empty module (go mod init example.com/app), the blocks
//	                              so marked in order, with PETSTORE set to this checkout
//	<!-- run: new module, Go 1.24 or later -->  the same, skipped with an older go command
//	<!-- run: with petstore-fake -->  run with a petstore-fake started by the test: its two
//	                              variables set, petstore and petstore-fake on PATH
//
// A block without a marker runs in a copy of this checkout. A ```text block
// marked <!-- output --> is the stdout of the shell block just before it,
// exactly. Every ```yaml block (a CI system's configuration) needs a marker
// too, since nothing here runs it. The environment is the caller's without
// PETSTORE_*, GOFLAGS, GOBIN, GOWORK and SSL_CERT_FILE (TestMain points that at the
// test certificate), plus PETSTORE, GOBIN (in a temporary directory, on
// PATH) and PETSTORE_FAKE_ADDR (a free loopback port, for the recipes that
// start petstore-fake at its default address).
func TestShellBlocks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the shell blocks build programs and a module")
	}
	checkout, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r := &blockRunner{checkout: checkout, tmp: t.TempDir()}
	r.env = r.baseEnv(t)
	for _, file := range docFiles(t) {
		for _, b := range fencedBlocks(t, file) {
			if b.lang == "go" || b.lang == "text" && b.marker == "" {
				continue // the Go snippets are Examples (TestREADMESnippetsAreExamples); text is output
			}
			t.Run(fmt.Sprintf("%s:%d", file, b.line), func(t *testing.T) { r.check(t, b) })
		}
	}
}

// block is one fenced block of a Markdown file.
type block struct {
	file, lang, marker, text string
	line                     int    // of the opening fence
	prev                     *block // the fenced block before it in the file
}

var markerRE = regexp.MustCompile(`^<!-- ((?:needs|is|run): .+|output) -->$`)

// fencedBlocks returns the fenced blocks of file, each with the marker on the
// last non-blank line before its fence, if that line is one.
func fencedBlocks(t *testing.T, file string) []*block {
	t.Helper()
	var blocks []*block
	var cur *block
	var lastLine string
	s := bufio.NewScanner(strings.NewReader(read(t, file)))
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{file: file, lang: strings.TrimPrefix(line, "```"), line: n}
			if m := markerRE.FindStringSubmatch(lastLine); m != nil {
				cur.marker = m[1]
			}
			if len(blocks) > 0 {
				cur.prev = blocks[len(blocks)-1]
			}
		case cur != nil && line == "```":
			blocks = append(blocks, cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
		if strings.TrimSpace(line) != "" {
			lastLine = strings.TrimSpace(line)
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: a fence that is never closed", file, cur.line)
	}
	return blocks
}

// blockRunner runs the blocks of every file, one after another.
type blockRunner struct {
	checkout, tmp string
	env           []string
	copyDir       string // the copy of the checkout, made for the first block that needs it
	moduleDir     string // the empty module of the run: new module blocks
	binDir        string // petstore and petstore-fake, built for run: with petstore-fake
	stdout        map[*block]string
}

func (r *blockRunner) check(t *testing.T, b *block) {
	switch {
	case b.lang == "sh" || b.lang == "bash" || b.lang == "shell":
		r.shell(t, b)
	case b.lang == "yaml" || b.lang == "yml":
		if !strings.HasPrefix(b.marker, "needs: ") && b.marker != "is: ci" {
			t.Errorf("a %s block with no <!-- needs: ... --> or <!-- is: ci --> marker: nothing runs it", b.lang)
		}
	case b.marker == "output":
		want, ok := r.stdout[b.prev]
		if !ok {
			t.Fatalf("an <!-- output --> block after a block that did not run (line %d)", b.prev.line)
		}
		if diff := cmp.Diff(b.text, want); diff != "" {
			t.Errorf("the block is not what the shell block before it printed (-want +got):\n%s", diff)
		}
	}
}

func (r *blockRunner) shell(t *testing.T, b *block) {
	switch {
	case strings.HasPrefix(b.marker, "needs: "):
		t.Logf("not run: %s", b.marker)
	case b.marker == "is: ci":
		checkIsCI(t, b.text, read(t, ".ci/run"))
	case b.marker == "run: new module":
		r.run(t, b, r.module(t), r.env)
	case b.marker == "run: new module, Go 1.24 or later":
		if v := r.goVersion(t); version.Compare(v, "go1.24") < 0 {
			t.Skipf("%s: go tool needs Go 1.24 or later", v)
		}
		r.run(t, b, r.module(t), r.env)
	case b.marker == "run: with petstore-fake":
		needTools(t, "curl", "jq")
		env, stop := r.startFake(t)
		defer stop()
		r.run(t, b, r.copyOfCheckout(t), env)
	case b.marker == "":
		r.run(t, b, r.copyOfCheckout(t), r.env)
	default:
		t.Errorf("unknown marker <!-- %s --> on a shell block", b.marker)
	}
}

// run runs b's text with bash -e in dir and records its stdout. Whatever the
// block left running in the background is killed when it ends.
func (r *blockRunner) run(t *testing.T, b *block, dir string, env []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), blockLiveness)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", b.text)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 10 * time.Second // a background child that keeps stdout open
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the block's group, background jobs included
	}
	if err != nil {
		t.Fatalf("bash: %v\nthe block:\n%s\nstdout:\n%s\nstderr:\n%s", err, b.text, &stdout, &stderr)
	}
	if r.stdout == nil {
		r.stdout = map[*block]string{}
	}
	r.stdout[b] = stdout.String()
}

// baseEnv is the environment of every block: the caller's, without the
// variables that would change what the blocks do.
func (r *blockRunner) baseEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "PETSTORE"), name == "GOFLAGS", name == "GOBIN", name == "GOWORK", name == "SSL_CERT_FILE":
			continue
		case name == "PATH":
			continue // below
		}
		env = append(env, kv)
	}
	gobin := filepath.Join(r.tmp, "gobin")
	return append(env,
		"PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GOBIN="+gobin,
		"PETSTORE="+r.checkout,
		"PETSTORE_FAKE_ADDR="+freeLoopbackAddr(t),
	)
}

// freeLoopbackAddr returns a loopback address with a port nothing listens on
// (for a moment: the port is free when the block starts, unless another
// process took it since, which a busy machine makes unlikely, not impossible).
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// goVersion returns the version of the go command the blocks run.
func (r *blockRunner) goVersion(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Env = r.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env GOVERSION: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// module returns the empty module the run: new module blocks share.
func (r *blockRunner) module(t *testing.T) string {
	t.Helper()
	if r.moduleDir == "" {
		dir := filepath.Join(r.tmp, "app")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r.command(t, dir, "go", "mod", "init", "example.com/app")
		r.moduleDir = dir
	}
	return r.moduleDir
}

// copyOfCheckout returns a copy of the checkout (without .git), made once,
// so that the blocks' files (bin/, fake.env) never land in the checkout.
func (r *blockRunner) copyOfCheckout(t *testing.T) string {
	t.Helper()
	if r.copyDir != "" {
		return r.copyDir
	}
	dst := filepath.Join(r.tmp, "petstore-go")
	err := filepath.WalkDir(r.checkout, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(r.checkout, path)
		if err != nil {
			return err
		}
		switch {
		case d.Name() == ".git":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a worktree's .git file
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		return copyFile(path, filepath.Join(dst, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	r.copyDir = dst
	return dst
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	info, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, info.Mode().Perm())
}

// startFake starts the petstore-fake of this checkout on a free port and
// returns the environment of a block that uses it (its two variables set,
// petstore and petstore-fake on PATH), and a function that stops it.
func (r *blockRunner) startFake(t *testing.T) (env []string, stop func()) {
	t.Helper()
	if r.binDir == "" {
		bin := filepath.Join(r.tmp, "bin")
		r.command(t, r.checkout, "go", "build", "-o", bin+string(filepath.Separator), "./cmd/petstore", "./cmd/petstore-fake")
		r.binDir = bin
	}
	cmd := exec.Command(filepath.Join(r.binDir, "petstore-fake"), "-addr", "127.0.0.1:0", "-pets", "cmd/petstore-fake/testdata/pets.json")
	cmd.Env = r.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	env = append([]string{}, r.env...)
	s := bufio.NewScanner(out)
	for i := 0; i < 2 && s.Scan(); i++ { // the two export lines, once it listens
		env = append(env, strings.ReplaceAll(strings.TrimPrefix(s.Text(), "export "), "'", ""))
	}
	if len(env) != len(r.env)+2 {
		stop()
		t.Fatalf("petstore-fake printed no export lines: %v\n%s", s.Err(), &log)
	}
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + r.binDir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	return env, stop
}

// command runs a command the test needs (not a block's) and fails the test
// with its output if it fails.
func (r *blockRunner) command(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, r.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// needTools skips the test when a tool is missing, unless
// PETSTORE_SCRIPT_TEST=required (as in CI), when it fails instead.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PETSTORE_SCRIPT_TEST") == "required" {
				t.Fatalf("%s is missing, and PETSTORE_SCRIPT_TEST=required: %v", tool, err)
			}
			t.Skipf("%s is missing (PETSTORE_SCRIPT_TEST=required makes this a failure)", tool)
		}
	}
}

// checkIsCI checks that every command of an <!-- is: ci --> block is one
// that .ci/run runs.
func checkIsCI(t *testing.T, block, ciRun string) {
	t.Helper()
	ran := map[string]bool{"bash .ci/run": true}
	for _, line := range strings.Split(ciRun, "\n") {
		ran[ciCommand(line)] = true
	}
	for _, line := range strings.Split(block, "\n") {
		if c := ciCommand(line); c != "" && !ran[c] {
			t.Errorf("%q is in an <!-- is: ci --> block, but .ci/run does not run it", line)
		}
	}
}

var envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=\S*$`)

// ciCommand returns line as a command, without its comment, the variables
// set before it and -count=1 (which only keeps results out of the test cache).
func ciCommand(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	for len(fields) > 0 && envAssignment.MatchString(fields[0]) {
		fields = fields[1:]
	}
	var kept []string
	for _, f := range fields {
		if f != "-count=1" {
			kept = append(kept, f)
		}
	}
	if len(kept) > 0 && strings.HasPrefix(kept[0], "#") {
		return ""
	}
	return strings.Join(kept, " ")
}

// TestCICommand pins ciCommand's reading of a line.
func TestCICommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{"go test -race ./...", "go test -race ./..."},
		{"PETSTORE_SCRIPT_TEST=required PETSTORE_FAULTS_LONG=1 go test -race -count=1 ./...", "go test -race ./..."},
		{"bash .ci/run                   # what CI runs", "bash .ci/run"},
		{"# a comment", ""},
		{"", ""},
	} {
		if got := ciCommand(tc.line); got != tc.want {
			t.Errorf("ciCommand(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
