package check

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// healthy is what the fake gets, with 25 animals and Write: every check
// passes but those where the interface is silent.
func healthy() map[string]Verdict {
	m := make(map[string]Verdict, len(checks))
	for _, c := range checks {
		m[c.name] = Pass
	}
	for _, name := range []string{"get-pet-deprecation", "list-limit-101", "create-default-status"} {
		m[name] = Info
	}
	return m
}

// TestFakePasses holds the fake to the interface: no check fails, with as
// many animals as it may hold.
func TestFakePasses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pets  int
		infos []string // beyond healthy's: what cannot be checked with so few animals
	}{
		{0, []string{"list-limit", "list-status-available", "list-status-pending", "list-status-sold", "get-pet"}},
		{1, []string{"list-limit", "list-status-pending", "list-status-sold"}},
		{2, []string{"list-status-sold"}},
		{25, nil},
		{150, nil},
	}
	for _, tt := range tests {
		t.Run("pets="+strconv.Itoa(tt.pets), func(t *testing.T) {
			t.Parallel()
			want := healthy()
			for _, name := range tt.infos {
				want[name] = Info
			}
			srv := startFake(t, tt.pets, nil)
			if diff := cmp.Diff(want, verdicts(runChecks(t, srv))); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if got := len(srv.Created()); got != 1 {
				t.Errorf("the checks created %d animals, want 1", got)
			}
		})
	}
}

// TestFakeDetails shows what each check says of the fake, line by line.
func TestFakeDetails(t *testing.T) {
	t.Parallel()
	srv := startFake(t, 25, nil)
	var got []string
	for _, r := range runChecks(t, srv) {
		got = append(got, strings.ReplaceAll(r.String(), srv.URL, "URL"))
	}
	want := []string{
		`PASS auth-missing-key: GET /pets without an Authorization header answered 401 with an Error body (code "unauthorized")`,
		`PASS auth-wrong-key: GET /pets with a wrong key answered 401 with an Error body (code "unauthorized")`,
		`PASS list-default-limit: GET /pets without a limit returned 20 animals (at most 20)`,
		`PASS list-limit: GET /pets?limit=100 returned 25 animals, GET /pets?limit=24 returned 24`,
		`PASS list-status-available: GET /pets?limit=100&status=available returned 9 animals, all available`,
		`PASS list-status-pending: GET /pets?limit=100&status=pending returned 8 animals, all pending`,
		`PASS list-status-sold: GET /pets?limit=100&status=sold returned 8 animals, all sold`,
		`PASS get-pet: GET /pets/1 (a listed id) returned the animal GET /pets listed`,
		`PASS get-pet-absent: GET /pets/9223372036854775807 (an id not listed) answered 404 with an Error body (code "not_found")`,
		`INFO get-pet-deprecation: GET /pets/{petId} sends Deprecation: "@1735689600", Sunset: "Thu, 05 Dec 2030 00:00:00 GMT" (the interface's removal date)`,
		`INFO list-limit-101: GET /pets?limit=101 answered 400: petstore: GET /v1/pets: 400 invalid_parameter: limit must be an integer from 1 to 100, got "101" (request id req-11)`,
		`PASS create-pet: POST /pets answered 201 with {id 26, name "petstore check", categoryId 1, status ""}`,
		`INFO create-default-status: an animal created without a status has none`,
		`PASS create-get-pet: GET /pets/26 (the id created) returned the animal POST /pets created`,
		`PASS create-missing-name: POST /pets with {"categoryId":1} answered 400 with an Error body (code "invalid_body")`,
		`PASS pet-fields: 97 animals in 9 bodies have id, name and categoryId of their types, and status, if present, one of the three`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestReadOnly: without Write, Run sends no POST and skips the checks that
// write.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	srv := startFake(t, 3, nil)
	var got []Result
	fails, err := Run(context.Background(), Config{APIKey: srv.APIKey, Options: testOptions(srv.URL)}, func(r Result) { got = append(got, r) })
	if fails != 0 || err != nil {
		t.Fatalf("Run = %d, %v; want 0, nil", fails, err)
	}
	for _, r := range srv.Received() {
		if r.Method != http.MethodGet {
			t.Errorf("Run sent %s %s", r.Method, r.Path)
		}
	}
	want := healthy()
	for _, name := range []string{"create-pet", "create-default-status", "create-get-pet", "create-missing-name"} {
		delete(want, name)
	}
	if diff := cmp.Diff(want, verdicts(got)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestRunErrors: Run's error, when the deployment cannot be checked at all,
// wraps the SDK's; no result is reported.
func TestRunErrors(t *testing.T) {
	t.Setenv("PETSTORE_API_KEY", "") // set but empty counts as unset
	t.Setenv("PETSTORE_BASE_URL", "")
	srv := startFake(t, 3, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cfg  Config
		is   error // errors.Is
		as   any   // errors.As, if not nil
	}{
		{"missing key", context.Background(), Config{Options: testOptions(srv.URL)}, petstore.ErrMissingAPIKey, nil},
		{"wrong key", context.Background(), Config{APIKey: "wrong", Options: testOptions(srv.URL)}, petstore.ErrUnauthorized, new(*petstore.APIError)},
		{"unreachable", context.Background(), Config{APIKey: "k", Options: testOptions(closed)}, nil, new(*net.OpError)},
		{"refused option", context.Background(), Config{APIKey: "k", Options: []petstore.Option{petstore.WithMaxRetries(-1)}}, nil, nil},
		{"canceled", canceled, Config{APIKey: srv.APIKey, Options: testOptions(srv.URL)}, context.Canceled, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reported := 0
			fails, err := Run(tt.ctx, tt.cfg, func(Result) { reported++ })
			if err == nil || fails != 0 || reported != 0 {
				t.Fatalf("Run = %d, %v after %d results; want 0, an error, none", fails, err, reported)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Run: %v; want one that matches %v", err, tt.is)
			}
			if tt.as != nil && !errors.As(err, tt.as) {
				t.Errorf("Run: %v; want one that holds a %T", err, tt.as)
			}
		})
	}
}

// TestRunServerError: a 5xx to the first call (after retries) is Run's
// error, with the SDK's *APIError in it.
func TestRunServerError(t *testing.T) {
	t.Parallel()
	srv := startFake(t, 3, nil)
	srv.InjectFault(petstoretest.Fault{Operation: "ListPets", Status: http.StatusServiceUnavailable, Count: 2})
	opts := []petstore.Option{petstore.WithBaseURL(srv.URL), petstore.WithMaxRetries(1), petstore.WithRetryWait(0, 0)}
	_, err := Run(context.Background(), Config{APIKey: srv.APIKey, Options: opts}, nil)
	var ae *petstore.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable {
		t.Fatalf("Run: %v; want a 503 *petstore.APIError", err)
	}
	if got := srv.Requests(); got != 2 {
		t.Errorf("the fake received %d requests, want 2 (one retry)", got)
	}
}

// TestRunCanceledBetweenChecks: a context that ends after a check ends Run
// with its error, and the results reported until then stand.
func TestRunCanceledBetweenChecks(t *testing.T) {
	t.Parallel()
	srv := startFake(t, 3, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	fails, err := Run(ctx, Config{APIKey: srv.APIKey, Options: testOptions(srv.URL)}, func(r Result) {
		got = append(got, r.Name)
		cancel()
	})
	if fails != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %d, %v; want 0 and context.Canceled", fails, err)
	}
	if diff := cmp.Diff([]string{"auth-missing-key"}, got); diff != "" {
		t.Errorf("reported (-want +got):\n%s", diff)
	}
}

func TestIsProduction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{petstore.ProductionURL, true},
		{"https://petstore.example.com", true},
		{"https://PetStore.Example.COM/v1", true},
		{"https://petstore.example.com:443/v1", true},
		{"https://petstore.example.com:/v1", true}, // an empty port is the default one
		{"https://petstore.example.com./v1", true}, // the same DNS name
		{"http://petstore.example.com/v1", true},   // plain http still reaches it
		{"https://PETSTORE.EXAMPLE.COM.:443/v1/", true},
		{"", true}, // NewClient's default, with no PETSTORE_BASE_URL
		{petstore.StagingURL, false},
		{"https://petstore.example.com:8443/v1", false},
		{"https://petstore.example.com:0443/v1", true},
		{"https://petstore.example.com:00443/v1", true},
		{"https://petstore.example.com.evil.test/v1", false},
		{"https://evil.test/petstore.example.com/v1", false},
		{"https://petstore.example.co/v1", false},
		{"http://127.0.0.1:8080/v1", false},
		{"petstore.example.com/v1", false}, // no scheme: a path, which NewClient refuses
		{"https://petstore.example.com:bad/v1", false},
		{"https://petstore%2Eexample.com/v1", false}, // unparsable: NewClient refuses it
		{"://petstore.example.com", false},
		{"https://[::1/v1", false},
	}
	for _, tt := range tests {
		if got := IsProduction(tt.url); got != tt.want {
			t.Errorf("IsProduction(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func TestResultString(t *testing.T) {
	t.Parallel()
	got := Result{Verdict: Fail, Name: "get-pet", Detail: "GET /pets/1 answered 500"}.String()
	if want := "FAIL get-pet: GET /pets/1 answered 500"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
