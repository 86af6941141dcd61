package main

import (
	"encoding/json"
	"net/http"
	"strings"
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
		wantStdout any    // the JSON on stdout, decoded into this type's zero value; nil: stdout empty
		wantStderr string // in stderr
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
		{"missing key", []string{"list"}, []string{"PETSTORE_API_KEY="}, nil, exitAuth, nil, "no API key", 0},
		{"5xx after retries", []string{"-retries", "0", "list"}, nil, &petstoretest.Fault{Operation: "ListPets", Status: 503, Count: 1}, exitFailure, nil, "503", 1},
		{"timeout", []string{"-timeout", "200ms", "get", "1"}, nil, &petstoretest.Fault{Operation: "GetPet", Delay: time.Hour, Count: 1}, exitFailure, nil, "deadline exceeded", 1},
		{"limit refused", []string{"list", "-limit", "101"}, nil, nil, exitUsage, nil, "Limit is 101", 0},
		{"status refused", []string{"list", "-status", "lost"}, nil, nil, exitUsage, nil, "invalid parameters", 0},
		{"name missing", []string{"create", "-category", "1"}, nil, nil, exitUsage, nil, "Name", 0},
		{"category missing", []string{"create", "-name", "Bella"}, nil, nil, exitUsage, nil, "-category is required", 0},
		{"category not a number", []string{"create", "-name", "Bella", "-category", "one"}, nil, nil, exitUsage, nil, "invalid value", 0},
		{"id not a number", []string{"get", "one"}, nil, nil, exitUsage, nil, "not an animal id", 0},
		{"no id", []string{"get"}, nil, nil, exitUsage, nil, "want 1 argument", 0},
		{"two ids", []string{"get", "1", "2"}, nil, nil, exitUsage, nil, "want 1 argument", 0},
		{"argument to list", []string{"list", "sold"}, nil, nil, exitUsage, nil, "want 0 argument", 0},
		{"no command", nil, nil, nil, exitUsage, nil, "usage: petstore", 0},
		{"unknown command", []string{"delete", "1"}, nil, nil, exitUsage, nil, `unknown command "delete"`, 0},
		{"unknown flag", []string{"-x", "list"}, nil, nil, exitUsage, nil, "flag provided but not defined", 0},
		{"negative timeout", []string{"-timeout", "-1s", "list"}, nil, nil, exitUsage, nil, "negative", 0},
		{"negative retries", []string{"-retries", "-1", "list"}, nil, nil, exitUsage, nil, "WithMaxRetries", 0},
		{"http to a far host", []string{"-base-url", "http://petstore.example.com/v1", "list"}, nil, nil, exitUsage, nil, "clear text", 0},
		{"bad PETSTORE_INSECURE_HTTP", []string{"list"}, []string{"PETSTORE_INSECURE_HTTP=maybe"}, nil, exitUsage, nil, "PETSTORE_INSECURE_HTTP", 0},
		{"check, negative retries", []string{"-retries", "-1", "check"}, nil, nil, exitUsage, nil, "WithMaxRetries", 0},
		{"check, a scheme refused", []string{"-base-url", "ftp://example.com/v1", "check", "-write"}, nil, nil, exitUsage, nil, "scheme", 0},
		{"check, missing key", []string{"check"}, []string{"PETSTORE_API_KEY="}, nil, exitAuth, nil, "no API key", 0},
		{"check, wrong key", []string{"check"}, []string{"PETSTORE_API_KEY=wrong-key"}, nil, exitAuth, nil, "401 unauthorized", 1},
		{"help", []string{"-h"}, nil, nil, exitOK, nil, "usage: petstore", 0},
		{"help of a command", []string{"create", "-h"}, nil, nil, exitOK, nil, "usage: petstore [global flags] create", 0},
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
			if n := srv.Requests(); n != tc.wantSent {
				t.Errorf("the fake received %d requests; want %d", n, tc.wantSent)
			}
			if strings.Contains(got.stdout+got.stderr, srv.APIKey) {
				t.Errorf("the key is in the output:\nstdout: %s\nstderr: %s", got.stdout, got.stderr)
			}
		})
	}
}

// checkStdout checks that stdout is one line of JSON that decodes to want,
// or empty when want is nil.
func checkStdout(t *testing.T, stdout string, want any) {
	t.Helper()
	if want == nil {
		if stdout != "" {
			t.Errorf("stdout = %q; want nothing", stdout)
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

// TestVerbose: -v writes the SDK's Debug records on stderr, never the key.
func TestVerbose(t *testing.T) {
	t.Parallel()
	srv := newFake(t)
	got := runCLI(t, fakeEnv(srv), "-v", "get", "1")
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
	quiet := runCLI(t, fakeEnv(srv), "get", "1")
	if quiet.stderr != "" {
		t.Errorf("without -v, stderr = %q; want nothing", quiet.stderr)
	}
}

// TestBaseURL: which deployment each combination of -base-url,
// PETSTORE_BASE_URL and -staging reaches, seen through a proxy that refuses
// to connect anywhere.
func TestBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		env  []string
		want string // the CONNECT the proxy saw
	}{
		{"default is production", nil, nil, "CONNECT petstore.example.com:443"},
		{"-staging", []string{"-staging"}, nil, "CONNECT staging.petstore.example.com:443"},
		{"PETSTORE_BASE_URL wins over -staging", []string{"-staging"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT env.test:443"},
		{"blank PETSTORE_BASE_URL", []string{"-staging"}, []string{"PETSTORE_BASE_URL= "}, "CONNECT staging.petstore.example.com:443"},
		{"-base-url wins over both", []string{"-staging", "-base-url", "https://flag.test:8443/v1"}, []string{"PETSTORE_BASE_URL=https://env.test/v1"}, "CONNECT flag.test:8443"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newProxy(t)
			env := append(p.env(), "PETSTORE_API_KEY=some-key")
			got := runCLI(t, append(env, tc.env...), append(append(tc.args, "-retries", "0"), "list")...)
			if got.code != exitFailure {
				t.Errorf("exit status %d; want %d (the proxy refuses)\nstderr: %s", got.code, exitFailure, got.stderr)
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
