package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// newFake returns a started fake with three animals.
func newFake(t *testing.T) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusSold})
	srv.AddPet(petstore.NewPet{Name: "Kiwi", CategoryID: 3, Status: petstore.PetStatusAvailable})
	return srv
}

// fakeEnv returns the variables that point the program at srv.
func fakeEnv(srv *petstoretest.Server) []string {
	return []string{"PETSTORE_API_KEY=" + srv.APIKey, "PETSTORE_BASE_URL=" + srv.URL}
}

var (
	rex  = petstore.Pet{ID: 1, Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable}
	tom  = petstore.Pet{ID: 2, Name: "Tom", CategoryID: 2, Status: petstore.PetStatusSold}
	kiwi = petstore.Pet{ID: 3, Name: "Kiwi", CategoryID: 3, Status: petstore.PetStatusAvailable}
)

// TestCommands runs the built program against the in-process fake: each
// subcommand, its output and its exit status.
func TestCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        []string // beyond the fake's key and URL
		fault      *petstoretest.Fault
		wantCode   int
		wantStdout any    // the JSON on stdout, decoded into this type's zero value; a string: in stdout; nil: stdout empty
		wantStderr string // in stderr (anything when empty)
		wantSent   int    // requests the fake received
	}{
		{"list", []string{"list"}, nil, nil, exitOK, []petstore.Pet{rex, tom, kiwi}, "", 1},
		{"list with flags", []string{"list", "-limit", "1", "-status", "available"}, nil, nil, exitOK, []petstore.Pet{rex}, "", 1},
		{"list of none", []string{"list", "-status", "pending"}, nil, nil, exitOK, []petstore.Pet{}, "", 1},
		{"create", []string{"create", "-name", "Bella <3", "-category", "4", "-status", "pending"}, nil, nil, exitOK,
			&petstore.Pet{ID: 4, Name: "Bella <3", CategoryID: 4, Status: petstore.PetStatusPending}, "", 1},
		{"get", []string{"get", "3"}, nil, nil, exitOK, &kiwi, "", 1},
		{"get, not found", []string{"get", "99"}, nil, nil, exitNotFound, nil, "404 not_found", 1},
		{"wrong key", []string{"list"}, []string{"PETSTORE_API_KEY=wrong-key"}, nil, exitAuth, nil, "401 unauthorized", 1},
		{"missing key", []string{"list"}, []string{"PETSTORE_API_KEY="}, nil, exitAuth, nil, "no API key: set PETSTORE_API_KEY", 0},
		{"5xx after retries", []string{"-retries", "0", "list"}, nil, fault503("ListPets"), exitLater, nil, "503", 1},
		{"timeout", []string{"-timeout", "200ms", "get", "1"}, nil, &petstoretest.Fault{Operation: "GetPet", Delay: time.Hour, Count: 1}, exitFailure, nil, "deadline exceeded", 1},
		{"limit refused", []string{"list", "-limit", "101"}, nil, nil, exitUsage, nil, "invalid parameters: -limit is 101; want 1..100", 0},
		{"status refused", []string{"list", "-status", "lost"}, nil, nil, exitUsage, nil, `invalid parameters: -status is "lost"`, 0},
		{"name missing", []string{"create", "-category", "1"}, nil, nil, exitUsage, nil, "invalid parameters: -name is empty", 0},
		{"status of create refused", []string{"create", "-name", "Bella", "-category", "1", "-status", "lost"}, nil, nil, exitUsage, nil, `invalid parameters: -status is "lost"`, 0},
		{"category missing", []string{"create", "-name", "Bella"}, nil, nil, exitUsage, nil, "-category is required", 0},
		{"category not a number", []string{"create", "-name", "Bella", "-category", "one"}, nil, nil, exitUsage, nil, "invalid value", 0},
		{"id not a number", []string{"get", "one"}, nil, nil, exitUsage, nil, "not an animal id", 0},
		{"id out of range", []string{"get", "99999999999999999999"}, nil, nil, exitUsage, nil, "99999999999999999999 is out of range", 0},
		{"no id", []string{"get"}, nil, nil, exitUsage, nil, "want 1 argument", 0},
		{"two ids", []string{"get", "1", "2"}, nil, nil, exitUsage, nil, "want 1 argument", 0},
		{"argument to list", []string{"list", "sold"}, nil, nil, exitUsage, nil, "want 0 argument", 0},
		{"no command", nil, nil, nil, exitUsage, nil, "usage: petstore", 0},
		{"unknown command", []string{"delete", "1"}, nil, nil, exitUsage, nil, `unknown command "delete"`, 0},
		{"unknown flag", []string{"-x", "list"}, nil, nil, exitUsage, nil, "flag provided but not defined", 0},
		{"unknown flag of a command, with its usage", []string{"list", "-x"}, nil, nil, exitUsage, nil, "usage: petstore list", 0},
		{"negative timeout", []string{"-timeout", "-1s", "list"}, nil, nil, exitUsage, nil, "-timeout -1s is negative", 0},
		{"negative retries", []string{"-retries", "-1", "list"}, nil, nil, exitUsage, nil, "-retries: -1 is negative", 0},
		{"http to a far host", []string{"-base-url", "http://petstore.example.com/v1", "list"}, nil, nil, exitUsage, nil, "-base-url: URL", 0},
		{"http to a far host from PETSTORE_BASE_URL", []string{"list"}, []string{"PETSTORE_BASE_URL=http://petstore.example.com/v1"}, nil, exitUsage, nil, "PETSTORE_BASE_URL: URL", 0},
		{"bad PETSTORE_INSECURE_HTTP", []string{"list"}, []string{"PETSTORE_INSECURE_HTTP=maybe"}, nil, exitUsage, nil, "PETSTORE_INSECURE_HTTP", 0},
		{"bad PETSTORE_DEBUG", []string{"list"}, []string{"PETSTORE_DEBUG=maybe"}, nil, exitUsage, nil, "PETSTORE_DEBUG", 0},
		{"check, negative retries", []string{"-retries", "-1", "check"}, nil, nil, exitUsage, nil, "-retries: -1 is negative", 0},
		{"check, a scheme refused", []string{"-base-url", "ftp://example.com/v1", "check", "-write"}, nil, nil, exitUsage, nil, "scheme", 0},
		{"check, missing key", []string{"check"}, []string{"PETSTORE_API_KEY="}, nil, exitAuth, nil, "no API key", 0},
		{"check, wrong key", []string{"check"}, []string{"PETSTORE_API_KEY=wrong-key"}, nil, exitAuth, "INFO target http://127.0.0.1:", "401 unauthorized", 1},
		{"-h", []string{"-h"}, nil, nil, exitOK, "usage: petstore", "", 0},
		{"-h of a command", []string{"create", "-h"}, nil, nil, exitOK, "usage: petstore create", "", 0},
		{"-h after an argument", []string{"get", "1", "-h"}, nil, nil, exitOK, "usage: petstore get ID", "", 0},
		{"help", []string{"help"}, nil, nil, exitOK, "usage: petstore", "", 0},
		{"help of a command", []string{"help", "list"}, nil, nil, exitOK, "usage: petstore list", "", 0},
		{"create, outcome unknown", []string{"create", "-name", "Bella", "-category", "4"}, nil, &petstoretest.Fault{Operation: "CreatePet", Disconnect: true, Count: 1}, exitUnknown, nil,
			"(outcome unknown: the animal may have been created): run petstore list before creating it again", 1},
		{"help of an unknown command", []string{"help", "delete"}, nil, nil, exitUsage, nil, `unknown command "delete"`, 0},

		// Global flags anywhere: after the command, after its arguments.
		{"global flag after the command", []string{"list", "-retries", "0"}, nil, fault503("ListPets"), exitLater, nil, "503", 1},
		{"global flag after the argument", []string{"get", "1", "-retries", "0"}, nil, fault503("GetPet"), exitLater, nil, "503", 1},
		{"global flag with two dashes and =", []string{"list", "--retries=0"}, nil, fault503("ListPets"), exitLater, nil, "503", 1},
		{"global and command flags mixed", []string{"list", "-retries", "0", "-limit", "1", "-json"}, nil, nil, exitOK, []petstore.Pet{rex}, "", 1},
		{"-timeout after the argument", []string{"get", "1", "-timeout", "200ms"}, nil, &petstoretest.Fault{Operation: "GetPet", Delay: time.Hour, Count: 1}, exitFailure, nil, "deadline exceeded", 1},
		{"negative timeout after the command", []string{"list", "-timeout", "-1s"}, nil, nil, exitUsage, nil, "-timeout -1s is negative", 0},
		{"-- ends the flags", []string{"get", "-retries", "0", "--", "2"}, nil, nil, exitOK, &tom, "", 1},
		{"a flag after --", []string{"get", "--", "-retries"}, nil, nil, exitUsage, nil, `"-retries" is not an animal id`, 0},

		// -retry-wait: a max below Retry-After returns at once, where the
		// default max (8s) waits 1s and tries again.
		{"-retry-wait", []string{"list", "-retry-wait", "1ms,10ms"}, nil, &petstoretest.Fault{Operation: "ListPets", Status: 503, RetryAfter: time.Second, Count: 1}, exitLater, nil, "503", 1},
		{"without -retry-wait", []string{"list"}, nil, &petstoretest.Fault{Operation: "ListPets", Status: 503, RetryAfter: time.Second, Count: 1}, exitOK, []petstore.Pet{rex, tom, kiwi}, "", 2},
		{"-retry-wait not MIN,MAX", []string{"list", "-retry-wait", "1s"}, nil, nil, exitUsage, nil, "-retry-wait", 0},
		{"-retry-wait not durations", []string{"list", "-retry-wait", "1,2"}, nil, nil, exitUsage, nil, "-retry-wait", 0},
		{"-retry-wait min above max", []string{"list", "-retry-wait", "2s,1s"}, nil, nil, exitUsage, nil, "-retry-wait: want 0 <= min <= max", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newFake(t)
			if tc.fault != nil {
				srv.InjectFault(*tc.fault)
			}
			got := runCLI(t, append(fakeEnv(srv), tc.env...), tc.args...)
			if got.code != tc.wantCode {
				t.Errorf("exit status %d; want %d\nstderr: %s", got.code, tc.wantCode, got.stderr)
			}
			checkStdout(t, got.stdout, tc.wantStdout)
			if !strings.Contains(got.stderr, tc.wantStderr) {
				t.Errorf("stderr %q does not say %q", got.stderr, tc.wantStderr)
			}
			if got.stderr != "" && !strings.Contains(got.stderr, "usage: ") && strings.Count(got.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", got.stderr) // only usage text may take more
			}
			if got.stderr != "" && !strings.HasPrefix(got.stderr, "petstore: ") {
				t.Errorf("stderr %q does not start with petstore: ", got.stderr)
			}
			if name := goName.FindString(got.stdout + got.stderr); name != "" {
				t.Errorf("the output names the SDK's %s:\nstdout: %s\nstderr: %s", name, got.stdout, got.stderr)
			}
			if n := srv.Requests(); n != tc.wantSent {
				t.Errorf("the fake received %d requests; want %d", n, tc.wantSent)
			}
			if strings.Contains(got.stdout+got.stderr, srv.APIKey) {
				t.Errorf("the key is in the output:\nstdout: %s\nstderr: %s", got.stdout, got.stderr)
			}
		})
	}
}

// goName matches the SDK's Go names, which the program's messages never
// say: they name the flags and variables the user typed or set.
var goName = regexp.MustCompile(`\bWith[A-Z]\w*|NewClient|ListPetsParams|NewPet\.|ProductionURL|StagingURL`)

// fault503 is one 503 for op.
func fault503(op string) *petstoretest.Fault {
	return &petstoretest.Fault{Operation: op, Status: 503, Count: 1}
}

// TestCreateAnsweredWithoutPet: a server that answers a create with 201
// and an empty body (as many APIs do) created the animal, whose id is
// unknown: the program exits 6 and its one line says to list before
// creating again, so that a script does not create it twice.
func TestCreateAnsweredWithoutPet(t *testing.T) {
	t.Parallel()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/pets" {
			http.Error(w, "not here", http.StatusTeapot)
			return
		}
		posts.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(srv.Close)
	got := runCLI(t, []string{"PETSTORE_API_KEY=test-key", "PETSTORE_BASE_URL=" + srv.URL + "/v1"}, "create", "-name", "Bella", "-category", "4")
	if got.code != exitUnknown {
		t.Errorf("exit status %d; want %d\nstderr: %s", got.code, exitUnknown, got.stderr)
	}
	checkStdout(t, got.stdout, nil)
	want := "petstore: POST /v1/pets: the server answered 201 (created) but the answer could not be read, so the animal exists and its id is unknown: empty response body: run petstore list before creating it again\n"
	if diff := cmp.Diff(want, got.stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("the server received %d creates; want 1", n)
	}
}

// checkStdout checks that stdout is one line of JSON that decodes to want,
// holds want when want is a string, or is empty when want is nil.
func checkStdout(t *testing.T, stdout string, want any) {
	t.Helper()
	switch w := want.(type) {
	case nil:
		if stdout != "" {
			t.Errorf("stdout = %q; want nothing", stdout)
		}
		return
	case string:
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout = %q; want it to hold %q", stdout, w)
		}
		return
	}
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Errorf("stdout = %q; want one line", stdout)
	}
	var got any
	switch want.(type) {
	case []petstore.Pet:
		got = new([]petstore.Pet)
	case *petstore.Pet:
		got = new(*petstore.Pet)
	}
	if err := json.Unmarshal([]byte(stdout), got); err != nil {
		t.Fatalf("stdout %q is not the JSON of %T: %v", stdout, want, err)
	}
	var diff string
	switch g := got.(type) {
	case *[]petstore.Pet:
		diff = cmp.Diff(want, *g)
	case **petstore.Pet:
		diff = cmp.Diff(want, *g)
	}
	if diff != "" {
		t.Errorf("stdout mismatch (-want +got):\n%s", diff)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	got := runCLI(t, nil, "-version")
	want := result{code: exitOK, stdout: "petstore " + petstore.Version + "\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("petstore -version (-want +got):\n%s", diff)
	}
}

// TestVerbose: -v, before or after the command, and PETSTORE_DEBUG set
// true write the SDK's Debug records on stderr, never the key.
func TestVerbose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  []string
	}{
		{"-v", []string{"-v", "get", "1"}, nil},
		{"-v after the argument", []string{"get", "1", "-v"}, nil},
		{"PETSTORE_DEBUG=1", []string{"get", "1"}, []string{"PETSTORE_DEBUG=1"}},
		{"PETSTORE_DEBUG=true", []string{"get", "1"}, []string{"PETSTORE_DEBUG=true"}},
	}
	srv := newFake(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := runCLI(t, append(fakeEnv(srv), tc.env...), tc.args...)
			if got.code != exitOK {
				t.Fatalf("exit status %d; stderr: %s", got.code, got.stderr)
			}
			for _, want := range []string{"level=DEBUG", `msg="petstore: attempt"`, "path=/v1/pets/1", "status=200", "level=WARN", "deprecated"} {
				if !strings.Contains(got.stderr, want) {
					t.Errorf("stderr does not say %q:\n%s", want, got.stderr)
				}
			}
			if strings.Contains(got.stderr, srv.APIKey) {
				t.Errorf("stderr holds the key:\n%s", got.stderr)
			}
		})
	}
	for _, env := range []string{"PETSTORE_DEBUG=", "PETSTORE_DEBUG=0", "PETSTORE_DEBUG=false"} {
		quiet := runCLI(t, append(fakeEnv(srv), env), "get", "1")
		if quiet.code != exitOK || quiet.stderr != "" {
			t.Errorf("with %s and without -v: exit status %d, stderr %q; want 0 and nothing", env, quiet.code, quiet.stderr)
		}
	}
}

// TestBaseURL: which deployment each combination of -base-url,
// PETSTORE_BASE_URL and -staging reaches, seen through a proxy that refuses
// to connect anywhere (so nothing leaves loopback): every flag wins over
// every variable, for a read and for a write.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  []string
		want string // the CONNECT the proxy saw
	}{
		{"default is production", []string{"list"}, nil, "CONNECT petstore.example.com:443"},
		{"-staging", []string{"-staging", "list"}, nil, "CONNECT staging.petstore.example.com:443"},
		{"-staging after the command", []string{"list", "-staging"}, nil, "CONNECT staging.petstore.example.com:443"},
		{"PETSTORE_BASE_URL alone", []string{"list"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT env.test:443"},
		{"-staging wins over PETSTORE_BASE_URL", []string{"-staging", "list"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT staging.petstore.example.com:443"},
		{"-staging wins over PETSTORE_BASE_URL for a create", []string{"-staging", "create", "-name", "Bella", "-category", "1"},
			[]string{"PETSTORE_BASE_URL=https://petstore.example.com/v1"}, "CONNECT staging.petstore.example.com:443"},
		{"-staging after the command wins over PETSTORE_BASE_URL", []string{"create", "-name", "Bella", "-category", "1", "-staging"},
			[]string{"PETSTORE_BASE_URL=https://petstore.example.com/v1"}, "CONNECT staging.petstore.example.com:443"},
		{"-staging wins over PETSTORE_BASE_URL for check", []string{"check", "-staging"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT staging.petstore.example.com:443"},
		{"blank PETSTORE_BASE_URL", []string{"-staging", "list"}, []string{"PETSTORE_BASE_URL= "}, "CONNECT staging.petstore.example.com:443"},
		{"-base-url wins over both", []string{"-staging", "-base-url", "https://flag.test:8443/v1", "list"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT flag.test:8443"},
		{"-base-url after the command", []string{"list", "-base-url", "https://flag.test:8443/v1"}, nil, "CONNECT flag.test:8443"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newProxy(t)
			env := append(p.env(), "PETSTORE_API_KEY=some-key")
			got := runCLI(t, append(env, tc.env...), append([]string{"-retries", "0"}, tc.args...)...)
			if got.code != exitLater { // no connection had: safe to try again later
				t.Errorf("exit status %d; want %d (the proxy refuses)\nstderr: %s", got.code, exitLater, got.stderr)
			}
			if diff := cmp.Diff([]string{tc.want}, p.seen()); diff != "" {
				t.Errorf("requests through the proxy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInsecureHTTP: PETSTORE_INSECURE_HTTP=1 lets the program reach a fake
// at a plain http address that is not loopback (as a CI service is), here
// through a proxy on loopback; without it, nothing is sent.
func TestInsecureHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value    string
		wantCode int
		wantSeen []string
	}{
		{"1", exitOK, []string{"GET petstore-fake:8080"}},
		{"true", exitOK, []string{"GET petstore-fake:8080"}},
		{"0", exitUsage, nil},
		{"", exitUsage, nil},
		{"yes", exitUsage, nil},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			t.Parallel()
			p := newProxy(t)
			env := append(p.env(), "PETSTORE_API_KEY=some-key", "PETSTORE_BASE_URL=http://petstore-fake:8080/v1", "PETSTORE_INSECURE_HTTP="+tc.value)
			got := runCLI(t, env, "list")
			if got.code != tc.wantCode {
				t.Errorf("exit status %d; want %d\nstderr: %s", got.code, tc.wantCode, got.stderr)
			}
			if diff := cmp.Diff(tc.wantSeen, p.seen()); diff != "" {
				t.Errorf("requests through the proxy (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyNeverShown: a server that echoes the key, as sent, JSON-escaped,
// percent-encoded and in another case, in bodies and headers of answers
// good and bad: the key is on neither stdout nor stderr, with or without -v.
func TestKeyNeverShown(t *testing.T) {
	t.Parallel()
	const key = "sk/Live+Secret_Key-42"
	forms := []string{key, `sk\/Live+Secret_Key-42`, `sk\u002fLive\u002BSecret_Key-42`, "sk%2FLive%2bSecret_Key-42", "SK/LIVE+SECRET_KEY-42"}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		all := strings.Join(forms, " ")
		w.Header().Set("X-Request-Id", key)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/v1/pets/404":
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]any{"code": key, "message": all, "status": 404})
		case r.URL.Path == "/v1/pets" && r.Method == http.MethodGet:
			w.Write([]byte(`[{"id":1,"name":"` + strings.Join(forms[1:3], " ") + `","categoryId":1}]`))
		default:
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"id": 1, "name": all, "categoryId": 1})
		}
	})
	srv := newServer(t, echo)
	for _, args := range [][]string{{"list"}, {"get", "1"}, {"get", "404"}, {"create", "-name", "x", "-category", "1"}} {
		for _, v := range []bool{false, true} {
			if v {
				args = append([]string{"-v"}, args...)
			}
			got := runCLI(t, []string{"PETSTORE_API_KEY=" + key, "PETSTORE_BASE_URL=" + srv}, args...)
			if got.code != exitOK && got.code != exitNotFound {
				t.Errorf("petstore %q: exit status %d\nstderr: %s", args, got.code, got.stderr)
			}
			for _, f := range forms {
				if strings.Contains(got.stdout, f) || strings.Contains(got.stderr, f) {
					t.Errorf("petstore %q shows the key as %q:\nstdout: %s\nstderr: %s", args, f, got.stdout, got.stderr)
				}
			}
			if !strings.Contains(got.stdout+got.stderr, "[REDACTED]") {
				t.Errorf("petstore %q: nothing redacted, so the server's echo never reached the output:\nstdout: %s\nstderr: %s", args, got.stdout, got.stderr)
			}
		}
	}
}
