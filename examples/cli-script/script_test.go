// Package main_test runs script.sh, the shell integration script of this
// example, with petstore and petstore-fake built for the test.
package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestScript runs script.sh and checks each line it prints: the branches
// taken on petstore's exit statuses (7 twice, made again by later), and
// check's verdict on the fake.
func TestScript(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("script.sh is a bash script")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is missing")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator),
		"github.com/petstore/petstore-go/cmd/petstore", "github.com/petstore/petstore-go/cmd/petstore-fake").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command("bash", "script.sh")
	cmd.Env = append(os.Environ(), "PETSTORE_API_KEY=", "PETSTORE_BASE_URL=", "PETSTORE_INSECURE_HTTP=",
		"PETSTORE="+filepath.Join(dir, "petstore"), "PETSTORE_FAKE="+filepath.Join(dir, "petstore-fake"),
		"PETSTORE_WAIT=0") // later's waits: none, here
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("script.sh: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	checkLines(t, "stderr", stderr.String(), []string{
		`^list: exit 7 \(petstore: GET /v1/pets: 503 .*: the call may succeed if made again later\); again in 0s$`,
		`^list: exit 7 \(petstore: GET /v1/pets: 503 .*: the call may succeed if made again later\); again in 0s$`,
	})
	checkLines(t, "stdout", string(out), []string{
		`^the deployment answers$`,
		`^create: outcome unknown \(petstore: .*\(outcome unknown: the animal may have been created\): run petstore list before creating it again\)$`,
		`^create: it was not created: creating it again$`,
		`^created 1$`,
		`^available: \[\{"id":1,"name":"Bella","categoryId":1,"status":"available"\}\]$`,
		`^found 1: \{"id":1,"name":"Bella","categoryId":1,"status":"available"\}$`,
		`^no animal 999$`,
		`^no access: check PETSTORE_API_KEY \(petstore: GET /v1/pets/1: 401 unauthorized: .*\)$`,
		`^\(as expected\)$`,
		`^bad usage: petstore: get: "seven" is not an animal id .*$`,
		`^\(as expected\)$`,
		`^check: the deployment keeps to the interface \(summary: \d+ passed, 0 failed, \d+ info\)$`,
	})
}

// checkLines checks that out, what script.sh printed on stream, is one
// line for each regular expression of want, in order.
func checkLines(t *testing.T, stream, out string, want []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("script.sh printed %d lines on %s; want %d:\n%s", len(lines), stream, len(want), out)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("%s line %d = %q; want it to match %s", stream, i+1, lines[i], re)
		}
	}
}
