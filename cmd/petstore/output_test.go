package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/redact"
	"github.com/petstore/petstore-go/petstoretest"
)

// TestPrint: what a command's result looks like on stdout, at a terminal
// (a table, unless -json) and elsewhere (one line of JSON), with the key in
// a string redacted and nothing else changed.
func TestPrint(t *testing.T) {
	t.Parallel()
	const key = "sk-Live-Secret-42"
	odd := petstore.Pet{ID: 42, Name: "Tab\there " + key, CategoryID: 7}
	esc := petstore.Pet{ID: 5, Name: "\x1b[31mred", CategoryID: 1, Status: "lost\nline"}
	tests := []struct {
		name           string
		terminal, json bool
		v              any
		want           string
	}{
		{"list, piped", false, false, []petstore.Pet{rex, odd},
			`[{"id":1,"name":"Rex","categoryId":1,"status":"available"},{"id":42,"name":"Tab\there [REDACTED]","categoryId":7}]` + "\n"},
		{"list, piped, -json", false, true, []petstore.Pet{rex}, `[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]` + "\n"},
		{"list of none, piped", false, false, []petstore.Pet{}, "[]\n"},
		{"get, piped", false, false, &tom, `{"id":2,"name":"Tom","categoryId":2,"status":"sold"}` + "\n"},
		{"list, terminal", true, false, []petstore.Pet{rex, tom, odd},
			"ID  NAME                    CATEGORY  STATUS\n" +
				"1   Rex                     1         available\n" +
				"2   Tom                     2         sold\n" +
				"42  \"Tab\\there [REDACTED]\"  7\n"},
		{"list, terminal, -json", true, true, []petstore.Pet{rex}, `[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]` + "\n"},
		{"control characters, terminal", true, false, []petstore.Pet{esc},
			"ID  NAME           CATEGORY  STATUS\n5   \"\\x1b[31mred\"  1         \"lost\\nline\"\n"},
		{"list of none, terminal", true, false, []petstore.Pet{}, "ID  NAME  CATEGORY  STATUS\n"},
		// encoding/json escapes the C0 controls; print also DEL and C1
		// (U+009B is CSI), which it would write raw.
		{"control characters, piped", false, false, &petstore.Pet{ID: 5, Name: "\x1b[2K\x07\x7f\u009b31m é", CategoryID: 1},
			`{"id":5,"name":"\u001b[2K\u0007\u007f\u009b31m é","categoryId":1}` + "\n"},
		{"a byte that is not UTF-8, terminal", true, false, &petstore.Pet{ID: 5, Name: "\x9b31m", CategoryID: 1},
			"ID  NAME       CATEGORY  STATUS\n5   \"\\x9b31m\"  1\n"},
		{"get, terminal", true, false, &kiwi, "ID  NAME  CATEGORY  STATUS\n3   Kiwi  3         available\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, terminal: tc.terminal, red: redact.New(key)}
			e.json = tc.json
			if code := e.print(tc.v); code != exitOK {
				t.Fatalf("print: exit status %d; stderr: %s", code, stderr.String())
			}
			if diff := cmp.Diff(tc.want, stdout.String()); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIsTerminal: the real check on files that are not terminals (a file,
// a pipe, the null device, which is a character device) and on one that is
// (the master side of a pseudo-terminal, where the system has one).
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, f := range []*os.File{file, w, null} {
		if isTerminal(f) {
			t.Errorf("isTerminal(%s) = true; want false", f.Name())
		}
	}
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to check the true case: %v", err)
	}
	defer ptmx.Close()
	if !isTerminal(ptmx) {
		t.Errorf("isTerminal(/dev/ptmx) = false; want true")
	}
}

// TestOutcomeUnknown: an error that matches ErrOutcomeUnknown (as CreatePet
// returns for a request that may have reached the server) exits 6, and its
// line says the animal may exist and to list before creating again, even
// when the cause is also a timeout.
func TestOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for _, err := range []error{
		fmt.Errorf("petstore: POST /v1/pets: %w: EOF", petstore.ErrOutcomeUnknown),
		fmt.Errorf("petstore: POST /v1/pets: %w", errors.Join(petstore.ErrOutcomeUnknown, context.DeadlineExceeded)),
	} {
		var stderr bytes.Buffer
		e := &env{stdout: io.Discard, stderr: &stderr, red: redact.New("")}
		if code := e.fail(err); code != exitUnknown {
			t.Errorf("fail(%q) = %d; want %d", err, code, exitUnknown)
		}
		got := stderr.String()
		if strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "petstore: ") {
			t.Errorf("stderr %q is not one line that starts petstore: ", got)
		}
		for _, want := range []string{"may have been created", "petstore list before creating it again"} {
			if n := strings.Count(got, want); n != 1 {
				t.Errorf("stderr %q says %q %d times, want once", got, want, n)
			}
		}
	}
}

// TestStdoutKeepsJSON: with a key that a fake is given, such as 1, stdout
// is the SDK's values as JSON, ids and categories untouched; only a string
// that holds the key changes. jq reads it, where it is installed.
func TestStdoutKeepsJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key   string
		names []string // of the animals, ids from 1, category 10+id, available
		want  []string // the names on stdout
	}{
		{"1", []string{"Rex", "Agent 1", "R2-D2 v1.1"}, []string{"Rex", "Agent [REDACTED]", "R2-D2 v1.1"}},
		// A key under 8 characters is matched only exactly as given and as
		// a whole token: not in another letter case, not inside a word.
		{"test", []string{"Test Dog", "a test", "TEST", "tests"}, []string{"Test Dog", "a [REDACTED]", "TEST", "tests"}},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			srv := petstoretest.NewUnstartedServer()
			srv.APIKey = tc.key
			want := []petstore.Pet{}
			for i, name := range tc.names {
				srv.AddPet(petstore.NewPet{Name: name, CategoryID: int64(11 + i), Status: petstore.PetStatusAvailable})
				want = append(want, petstore.Pet{ID: int64(1 + i), Name: tc.want[i], CategoryID: int64(11 + i), Status: petstore.PetStatusAvailable})
			}
			srv.Start()
			t.Cleanup(srv.Close)
			got := runCLI(t, fakeEnv(srv), "list")
			if got.code != exitOK {
				t.Fatalf("exit status %d; stderr: %s", got.code, got.stderr)
			}
			checkStdout(t, got.stdout, want)
			checkStdout(t, runCLI(t, fakeEnv(srv), "get", "1").stdout, &want[0])
			checkJQ(t, got.stdout, want)
		})
	}
}

// checkJQ checks that jq reads stdout as the JSON of want, where jq is
// installed (.ci/run installs it).
func checkJQ(t *testing.T, stdout string, want []petstore.Pet) {
	t.Helper()
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Log("jq is not installed: not piped through jq")
		return
	}
	cmd := exec.Command(jq, "-c", ".")
	cmd.Stdin = strings.NewReader(stdout)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("petstore list | jq .: %v\n%s", err, out)
	}
	checkStdout(t, string(out), want)
}

// TestWriteError: a result that cannot be written (stdout on a full
// device) is a failure, said on stderr with the program's prefix.
func TestWriteError(t *testing.T) {
	t.Parallel()
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	srv := newFake(t)
	cli, _ := programs(t)
	for _, args := range [][]string{{"list"}, {"help"}, {"-version"}, {"check"}} {
		cmd := exec.Command(cli, args...)
		cmd.Env = append(cleanEnv(), fakeEnv(srv)...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = full, &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != exitFailure {
			t.Errorf("petstore %q >/dev/full: exit status %d; want %d", args, code, exitFailure)
		}
		if got := stderr.String(); !strings.HasPrefix(got, "petstore: write ") || strings.Count(got, "\n") != 1 {
			t.Errorf("petstore %q >/dev/full: stderr %q; want one line, petstore: write ...", args, got)
		}
	}
}

// TestTableAtTerminal runs list with stdout on a pseudo-terminal: main
// finds it a terminal and prints a table; -json still prints JSON.
func TestTableAtTerminal(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "-limit", "2"}, "ID  NAME  CATEGORY  STATUS\n1   Rex   1         available\n2   Tom   2         sold\n"},
		{[]string{"list", "-limit", "1", "-json"}, `[{"id":1,"name":"Rex","categoryId":1,"status":"available"}]` + "\n"},
	} {
		got := runOnTerminal(t, fakeEnv(srv), tc.args...)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("petstore %q at a terminal (-want +got):\n%s", tc.args, diff)
		}
	}
}

// TestQuotingWriter: a log record that holds a control character slog's
// text handler leaves raw (DEL) is written quoted; others as they are.
func TestQuotingWriter(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"level=DEBUG msg=x\n", "level=DEBUG msg=x\n"},
		{"level=DEBUG id=a\x7fb\n", `"level=DEBUG id=a\x7fb"` + "\n"},
		{"level=DEBUG id=\"a\\x1b\"\n", "level=DEBUG id=\"a\\x1b\"\n"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		n, err := quotingWriter{&b}.Write([]byte(tc.in))
		if err != nil || n != len(tc.in) {
			t.Errorf("Write(%q) = %d, %v; want %d, nil", tc.in, n, err, len(tc.in))
		}
		if diff := cmp.Diff(tc.want, b.String()); diff != "" {
			t.Errorf("Write(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
