package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
)

// hostile is what a server puts in an Error body's code and message, and
// in an animal's name: it would erase the line, retitle the window and
// forge a line of its own if it reached a terminal raw.
const hostile = "\x1b[2K\x1b]0;title\x07created #42"

// hostileName is an animal's name with the control characters
// encoding/json leaves raw: DEL and a C1 (U+009B, CSI).
const hostileName = hostile + "\x7f\u009b31m"

// hostileServer answers as a deployment that sends hostile texts: a wrong
// or missing key gets 403, list -limit 7, get and create get 400 (not
// retried), the absent id of check gets 500, each with hostile in its code
// and message; list -limit 3 gets an animal named hostileName; any other
// list, none.
func hostileServer(t *testing.T, key string) string {
	t.Helper()
	return newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		status := 0
		switch {
		case r.Header.Get("Authorization") != "Bearer "+key:
			status = http.StatusForbidden
		case r.URL.Path == "/v1/pets/9223372036854775807":
			status = http.StatusInternalServerError
		case r.URL.Path != "/v1/pets" || r.Method != http.MethodGet || r.URL.Query().Get("limit") == "7":
			status = http.StatusBadRequest
		case r.URL.Query().Get("limit") == "3":
			json.NewEncoder(w).Encode([]petstore.Pet{{ID: 1, Name: hostileName, CategoryID: 1}})
			return
		default:
			w.Write([]byte("[]"))
			return
		}
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"code": hostile, "message": hostileName, "status": status})
	}))
}

// TestNoControlCharacterReachesTheTerminal: a server's ESC and BEL (and
// DEL and C1 in a name) reach neither stdout nor stderr raw, whatever the
// subcommand or output form; they are shown quoted (the text stays
// visible), and JSON stays valid, the name decoded as the server sent it.
func TestNoControlCharacterReachesTheTerminal(t *testing.T) {
	t.Parallel()
	const key = "safety-test-key"
	base := hostileServer(t, key)
	tests := []struct {
		name     string
		args     []string
		env      []string
		wantCode int
		wantJSON bool // stdout is one JSON document a line
	}{
		{"list", []string{"list", "-limit", "7"}, nil, exitFailure, false},
		{"list, -v", []string{"-v", "list", "-limit", "7"}, nil, exitFailure, false},
		{"list, a hostile name as JSON", []string{"list", "-limit", "3"}, nil, exitOK, true},
		{"create", []string{"create", "-name", "Bella", "-category", "1"}, nil, exitFailure, false},
		{"get", []string{"get", "1"}, nil, exitFailure, false},
		{"get, -json", []string{"get", "1", "-json"}, nil, exitFailure, false},
		{"wrong key", []string{"get", "1"}, []string{"PETSTORE_API_KEY=wrong-key"}, exitFailure, false},
		{"check", []string{"check"}, nil, exitDeviation, false},
		{"check -json", []string{"check", "-json"}, nil, exitDeviation, true},
		{"check, the first call refused", []string{"check"}, []string{"PETSTORE_API_KEY=wrong-key"}, exitFailure, false},
		{"check -json, the first call refused", []string{"check", "-json"}, []string{"PETSTORE_API_KEY=wrong-key"}, exitFailure, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := append([]string{"PETSTORE_API_KEY=" + key, "PETSTORE_BASE_URL=" + base}, tc.env...)
			got := runCLI(t, env, append([]string{"-retries", "0"}, tc.args...)...)
			if got.code != tc.wantCode {
				t.Errorf("exit status %d; want %d\nstdout: %q\nstderr: %q", got.code, tc.wantCode, got.stdout, got.stderr)
			}
			checkNoControl(t, "stdout", got.stdout)
			checkNoControl(t, "stderr", got.stderr)
			if all := got.stdout + got.stderr; !strings.Contains(all, `\x1b]0;title\acreated #42`) && !strings.Contains(all, `\u001b]0;title\u0007created #42`) {
				t.Errorf("the server's text is not shown quoted:\nstdout: %q\nstderr: %q", got.stdout, got.stderr)
			}
			if tc.wantJSON {
				checkJSONLines(t, got.stdout)
			}
		})
	}
	t.Run("check -junit", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "report.xml")
		got := runCLI(t, []string{"PETSTORE_API_KEY=" + key, "PETSTORE_BASE_URL=" + base}, "check", "-retries", "0", "-junit", file)
		if got.code != exitDeviation {
			t.Fatalf("exit status %d; want %d\nstderr: %q", got.code, exitDeviation, got.stderr)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		checkNoControl(t, "the report", string(b))
		if !strings.Contains(string(b), `\x1b]0;title\acreated #42`) {
			t.Errorf("the report does not show the server's text quoted:\n%s", b)
		}
	})
}

// checkNoControl checks that s, what the program wrote on stream, holds
// no control character but line breaks.
func checkNoControl(t *testing.T, stream, s string) {
	t.Helper()
	if i := strings.IndexFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }); i >= 0 {
		t.Errorf("%s holds a control character raw, at %d: %q", stream, i, s)
	}
}

// checkJSONLines checks that each line of stdout is one JSON value, and
// that a list's animal has the name the server sent.
func checkJSONLines(t *testing.T, stdout string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Errorf("line %q is not JSON: %v", line, err)
		}
		var pets []petstore.Pet
		if json.Unmarshal([]byte(line), &pets) == nil && len(pets) > 0 {
			if diff := cmp.Diff(hostileName, pets[0].Name); diff != "" {
				t.Errorf("the name decoded (-sent +decoded):\n%s", diff)
			}
		}
	}
}
