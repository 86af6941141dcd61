package petstoretest_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/petstoretest"
)

// newServer starts a fake with three animals (ids 1, 2, 3) and closes it at
// the end of the test.
func newServer(t *testing.T) *petstoretest.Server {
	t.Helper()
	srv := petstoretest.NewServer()
	t.Cleanup(srv.Close)
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	srv.AddPet(petstore.NewPet{Name: "Tom", CategoryID: 2, Status: petstore.PetStatusPending})
	srv.AddPet(petstore.NewPet{Name: "Kiwi", CategoryID: 3})
	return srv
}

// newClient returns an SDK client for srv with fast retries.
func newClient(t *testing.T, srv *petstoretest.Server, opts ...petstore.Option) *petstore.Client {
	t.Helper()
	opts = append([]petstore.Option{
		petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(time.Millisecond, 2*time.Millisecond),
	}, opts...)
	c, err := petstore.NewClient(srv.APIKey, opts...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// response is what a raw request got back: the status, the headers the
// tests look at, and the body decoded as generic JSON.
type response struct {
	Status int
	Header map[string]string
	Body   any
}

// checkedHeaders are the response headers compared by the raw tests.
var checkedHeaders = []string{"Content-Type", "Deprecation", "Sunset", "WWW-Authenticate", "Allow", "Retry-After"}

// do sends a raw request to srv (path is relative to srv.URL) with the
// given Authorization header ("" for none) and returns the response.
func do(t *testing.T, srv *petstoretest.Server, method, path, auth, body string) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	got := response{Status: resp.StatusCode, Header: map[string]string{}}
	for _, h := range checkedHeaders {
		if v := resp.Header.Get(h); v != "" {
			got.Header[h] = v
		}
	}
	if method != http.MethodHead {
		if err := json.Unmarshal(data, &got.Body); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", method, path, data, err)
		}
	}
	return got
}

// errBody is an Error body as generic JSON.
func errBody(status int, code, message string) map[string]any {
	return map[string]any{"code": code, "message": message, "status": float64(status)}
}

// pet is a Pet as generic JSON.
func pet(id int, name string, categoryID int, status string) map[string]any {
	p := map[string]any{"id": float64(id), "name": name, "categoryId": float64(categoryID)}
	if status != "" {
		p["status"] = status
	}
	return p
}

var (
	jsonHeader       = map[string]string{"Content-Type": "application/json"}
	deprecatedHeader = map[string]string{
		"Content-Type": "application/json",
		"Deprecation":  "@1735689600",
		"Sunset":       "Thu, 05 Dec 2030 00:00:00 GMT",
	}
)

// panicOf returns the value f panics with, or nil.
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// callOp makes one SDK call by name.
func callOp(c *petstore.Client, op string) error {
	ctx := context.Background()
	var err error
	switch op {
	case "ListPets":
		_, err = c.ListPets(ctx, petstore.ListPetsParams{})
	case "CreatePet":
		_, err = c.CreatePet(ctx, petstore.NewPet{Name: "Bella", CategoryID: 1})
	case "GetPet":
		//lint:ignore SA1019 the fake still serves the deprecated operation.
		_, err = c.GetPet(ctx, 1)
	default:
		panic("unknown op " + op)
	}
	return err
}

// listen returns a listener on a random loopback port, closed at the end of
// the test.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// protocols are the two ways the fake serves: plain HTTP/1.1 (Start), and
// HTTPS with HTTP/2 (StartTLS, called through Client).
var protocols = []struct {
	name string
	tls  bool
}{{"HTTP/1.1", false}, {"HTTP/2", true}}

// startServer starts a fake with one animal (Rex, id 1), over HTTP/2 with
// TLS when tls is set, and returns it with the options of an SDK client for
// it (fast retries). It closes the fake at the end of the test.
func startServer(t *testing.T, tls bool) (*petstoretest.Server, []petstore.Option) {
	t.Helper()
	srv := petstoretest.NewUnstartedServer()
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	srv.AddPet(petstore.NewPet{Name: "Rex", CategoryID: 1, Status: petstore.PetStatusAvailable})
	opts := []petstore.Option{
		petstore.WithBaseURL(srv.URL),
		petstore.WithRetryWait(time.Millisecond, 2*time.Millisecond),
		petstore.WithHTTPClient(srv.Client()),
	}
	return srv, opts
}

// seen is what the journal holds of a request, for comparing.
type seen struct {
	Operation string
	Status    int
	Fault     bool
}

// journal returns what srv's journal holds, oldest first.
func journal(srv *petstoretest.Server) []seen {
	var got []seen
	for _, r := range srv.Received() {
		got = append(got, seen{r.Operation, r.Status, r.Fault})
	}
	return got
}
