// Package main_test runs script.sh, the shell integration script of this
// example, against a petstore-fake built for the test.
package main_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// liveness bounds a run of the script: a guard against a hang, not a timing
// expectation; a healthy run takes a second or two.
const liveness = 2 * time.Minute

// wantOutput is what script.sh prints when every check passes.
const wantOutput = `== a: ListPets answers 503 once; curl --retry tries again
PASS a: fault added
PASS a: ListPets succeeds on retry
PASS a: journal: ListPets 503, then 200
PASS reset
== b: CreatePet's connection is reset; the script tries again
PASS b: fault added
PASS b: curl gets no answer
PASS b: journal: CreatePet unanswered (status 0), by the fault
PASS b: CreatePet succeeds on retry
PASS b: one Bella
PASS reset
== c: new animals, one with an id
PASS c: animals replaced
PASS c: ListPets(status=sold) returns Tom, numbered after Rex
PASS c: ListPets returns both, in id order
PASS c: journal: the two ListPets only
all checks passed
`

// needTools skips the test when bash, curl or jq is missing, unless
// PETSTORE_SCRIPT_TEST=required (as in CI), when it fails instead.
func needTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("script.sh is a POSIX shell script")
	}
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("PETSTORE_SCRIPT_TEST") == "required" {
				t.Fatalf("%s is missing, and PETSTORE_SCRIPT_TEST=required: %v", tool, err)
			}
			t.Skipf("%s is missing (script.sh needs bash, curl and jq; PETSTORE_SCRIPT_TEST=required makes this a failure)", tool)
		}
	}
}

// buildFake builds cmd/petstore-fake into dir and returns its path.
func buildFake(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "petstore-fake")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/petstore/petstore-go/cmd/petstore-fake").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runScript runs script.sh with PETSTORE_FAKE=fake and returns its exit
// code and output.
func runScript(t *testing.T, fake string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "script.sh")
	cmd.Env = append(os.Environ(), "PETSTORE_FAKE="+fake)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) || ctx.Err() != nil {
		t.Fatalf("bash script.sh: %v (context: %v)\nstdout:\n%s\nstderr:\n%s", err, ctx.Err(), out.String(), errOut.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func TestScript(t *testing.T) {
	t.Parallel()
	needTools(t)
	dir := t.TempDir()
	fake := buildFake(t, dir)

	t.Run("passes", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runScript(t, fake)
		if code != 0 {
			t.Errorf("exit code %d, want 0; stderr:\n%s", code, stderr)
		}
		if diff := cmp.Diff(wantOutput, stdout); diff != "" {
			t.Errorf("output mismatch (-want +got):\n%s", diff)
		}
	})

	// A fake that answers the first five ListPets with 500 (a -fault that
	// the script's reset does not precede): scenario a fails, and the
	// script says so and exits 1, after the other scenarios pass.
	t.Run("fails", func(t *testing.T) {
		t.Parallel()
		wrapper := filepath.Join(dir, "faulty-fake")
		script := "#!/bin/sh\nexec '" + fake + "' -fault op=ListPets,count=5,status=500 \"$@\"\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runScript(t, wrapper)
		if code != 1 {
			t.Errorf("exit code %d, want 1; stderr:\n%s", code, stderr)
		}
		var failed []string
		for _, line := range strings.Split(stdout, "\n") {
			if name, ok := strings.CutPrefix(line, "FAIL "); ok {
				failed = append(failed, name)
			}
		}
		want := []string{"a: ListPets succeeds on retry", "a: journal: ListPets 503, then 200"}
		if diff := cmp.Diff(want, failed); diff != "" {
			t.Errorf("failed checks mismatch (-want +got):\n%s\nstdout:\n%s", diff, stdout)
		}
		if !strings.HasSuffix(stdout, "PASS c: journal: the two ListPets only\n2 checks failed\n") {
			t.Errorf("stdout does not end with the last check and the count of failures:\n%s", stdout)
		}
	})
}
