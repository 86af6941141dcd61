package main

import (
	"net"
	"strings"
	"testing"
)

// TestExitLater runs the built program against the built petstore-fake
// with -fault, and against a port nothing listens on: it exits 7, with a
// line that says the call may succeed if made again later, exactly when
// petstore.Retryable holds (a 5xx or a refused connection to list or get,
// retried or not; a 429 to a create; a create that had no connection), and
// 1 for the rest (a 503 to a create, which may have created the animal; a
// 400).
func TestExitLater(t *testing.T) {
	t.Parallel()
	const later = ": the call may succeed if made again later\n"
	retries := []string{"-retry-wait", "1ms,2ms"} // the default -retries, 2, without its waits
	list, get := []string{"list"}, []string{"get", "1"}
	create := []string{"create", "-name", "Bella", "-category", "1"}
	tests := []struct {
		name     string
		fault    string // petstore-fake's -fault; "": a refused port
		args     []string
		wantCode int
		wantErr  string // in stderr
	}{
		{"list, 503, -retries 0", "status=503,count=9", append(list, "-retries", "0"), exitLater, "GET /v1/pets: 503"},
		{"list, 503 after retries", "status=503,count=9", append(list, retries...), exitLater, "GET /v1/pets: 503"},
		{"get, 503, -retries 0", "status=503,count=9", append(get, "-retries", "0"), exitLater, "GET /v1/pets/1: 503"},
		{"get, 503 after retries", "status=503,count=9", append(get, retries...), exitLater, "GET /v1/pets/1: 503"},
		{"list, 429", "status=429,count=9", append(list, "-retries", "0"), exitLater, "GET /v1/pets: 429"},
		{"create, 429, -retries 0", "op=CreatePet,status=429,count=9", append(create, "-retries", "0"), exitLater, "POST /v1/pets: 429"},
		{"create, 429 after retries", "op=CreatePet,status=429,count=9", append(create, retries...), exitLater, "POST /v1/pets: 429"},
		{"create, 503", "op=CreatePet,status=503,count=9", append(create, "-retries", "0"), exitFailure, "POST /v1/pets: 503"},
		{"create, 503 with retries", "op=CreatePet,status=503,count=9", append(create, retries...), exitFailure, "POST /v1/pets: 503"},
		{"list, 400", "status=400,count=9", list, exitFailure, "GET /v1/pets: 400"},
		{"list, a refused port", "", append(list, "-retries", "0"), exitLater, "GET /v1/pets: "},
		{"get, a refused port, after retries", "", append(get, retries...), exitLater, "GET /v1/pets/1: "},
		{"create, a refused port", "", append(create, "-retries", "0"), exitLater, "POST /v1/pets: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var env []string
			if tc.fault != "" {
				env = startFakeProgram(t, "-fault", tc.fault)
			} else {
				env = []string{"PETSTORE_API_KEY=some-key", "PETSTORE_BASE_URL=http://" + refusedAddr(t) + "/v1"}
			}
			got := runCLI(t, env, tc.args...)
			if got.code != tc.wantCode {
				t.Errorf("exit status %d; want %d\nstderr: %s", got.code, tc.wantCode, got.stderr)
			}
			if !strings.Contains(got.stderr, tc.wantErr) || strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr %q is not one line that says %q", got.stderr, tc.wantErr)
			}
			if says := strings.HasSuffix(got.stderr, later); says != (tc.wantCode == exitLater) {
				t.Errorf("stderr %q: says the call may succeed later: %v; want %v", got.stderr, says, tc.wantCode == exitLater)
			}
		})
	}
}

// refusedAddr returns a loopback address where nothing listens: a
// listener's, closed.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
