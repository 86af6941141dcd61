package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/google/go-cmp/cmp"
	petstore "github.com/petstore/petstore-go"
)

// Key is the API key every client sends.
const Key = "bench-key"

// Ops are the operations measured, in order.
var Ops = []string{"ListPets", "CreatePet", "GetPet"}

// Clients are the clients measured in process, in order.
var Clients = []string{"floor", "hand", "oapi-codegen", "ogen", "sdk", "sdk+observer"}

// LoopbackClients are the clients measured over loopback, in order: those,
// and sdk+transport, the SDK through a transport of the caller's. (In
// process every client sends through the caller's transport, the canned one,
// so there sdk+transport is sdk.)
var LoopbackClients = append(Clients[:len(Clients):len(Clients)], "sdk+transport")

// The canned responses and what each client must decode from them.
var (
	WantPets    = makePets(100)
	WantCreated = petstore.Pet{ID: 101, Name: "Nibbles the Hamster", CategoryID: 4, Status: petstore.PetStatusAvailable}
	WantPet     = petstore.Pet{ID: 42, Name: "Rex the Dog, No. 042", CategoryID: 1, Status: petstore.PetStatusSold}
	NewPet      = petstore.NewPet{Name: "Nibbles the Hamster", CategoryID: 4, Status: petstore.PetStatusAvailable}

	ListBody    = mustJSON(WantPets)    // about 8.4 KB
	CreatedBody = mustJSON(WantCreated) //
	PetBody     = mustJSON(WantPet)
	notFound    = []byte(`{"code":"not_found","message":"no such route","status":404}`)
)

func makePets(n int) []petstore.Pet {
	statuses := []petstore.PetStatus{petstore.PetStatusAvailable, petstore.PetStatusPending, petstore.PetStatusSold}
	kinds := []string{"Dog", "Cat", "Parrot", "Hamster", "Goldfish", "Rabbit", "Turtle"}
	pets := make([]petstore.Pet, n)
	for i := range pets {
		pets[i] = petstore.Pet{
			ID:         100000 + int64(i),
			Name:       fmt.Sprintf("Fluffy the %s, No. %03d", kinds[i%len(kinds)], i),
			CategoryID: int64(i%len(kinds)) + 1,
			Status:     statuses[i%len(statuses)],
		}
	}
	return pets
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Canned is an http.RoundTripper that answers from memory, so that only the
// client's own work is measured. With Check set, it also verifies each
// request (with encoding/json, which costs time: set it only for the
// first call).
type Canned struct {
	Check bool
}

var jsonType = []string{"application/json"}

// route picks the canned response for a request.
func route(method, path, rawQuery string) (int, []byte) {
	switch {
	case isNonASCIIList(method, path, rawQuery):
		return http.StatusOK, NonASCIIListBody
	case method == http.MethodGet && path == "/v1/pets" && rawQuery == "limit=100":
		return http.StatusOK, ListBody
	case method == http.MethodPost && path == "/v1/pets":
		return http.StatusCreated, CreatedBody
	case method == http.MethodGet && path == "/v1/pets/42":
		return http.StatusOK, PetBody
	}
	return http.StatusNotFound, notFound
}

// checkRequest verifies what a client sent: the key, and for CreatePet the
// JSON body.
func checkRequest(req *http.Request, body []byte) error {
	if got := req.Header.Get("Authorization"); got != "Bearer "+Key {
		return fmt.Errorf("authorization header = %q", got)
	}
	if req.Method != http.MethodPost {
		return nil
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/json" {
		return fmt.Errorf("Content-Type = %q", ct)
	}
	var got petstore.NewPet
	if err := json.Unmarshal(body, &got); err != nil {
		return fmt.Errorf("request body %q: %v", body, err)
	}
	if diff := cmp.Diff(NewPet, got); diff != "" {
		return fmt.Errorf("request body (-want +got):\n%s", diff)
	}
	return nil
}

// cannedBody is a response body over a canned byte slice.
type cannedBody struct {
	data []byte
	off  int
}

func (b *cannedBody) Read(p []byte) (int, error) {
	if b.off >= len(b.data) {
		return 0, io.EOF
	}
	n := copy(p, b.data[b.off:])
	b.off += n
	return n, nil
}

func (b *cannedBody) Close() error { return nil }

func (c *Canned) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		if c.Check {
			body, _ = io.ReadAll(req.Body)
		} else {
			_, _ = io.Copy(io.Discard, req.Body)
		}
		req.Body.Close()
	}
	if c.Check {
		if err := checkRequest(req, body); err != nil {
			return nil, err
		}
	}
	status, data := route(req.Method, req.URL.Path, req.URL.RawQuery)
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": jsonType},
		Body:          &cannedBody{data: data},
		ContentLength: int64(len(data)),
		Request:       req,
	}, nil
}

// Handler serves the canned responses over HTTP, checking each request.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := checkRequest(r, body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		status, data := route(r.Method, r.URL.Path, r.URL.RawQuery)
		h := w.Header()
		h["Content-Type"] = jsonType
		h["Content-Length"] = []string{strconv.Itoa(len(data))}
		w.WriteHeader(status)
		_, _ = w.Write(data)
	})
}

// Client is one client under test: Call[op] makes one call and keeps its
// result; Result[op] returns that result in the SDK's types, to compare.
// The result is kept in the Client, so goroutines that call at once each
// need a Client of their own: see Clone and Run.
type Client struct {
	Name   string
	Call   map[string]func(context.Context) error
	Result map[string]func() any

	calls func() *Client // makes Call and Result afresh, over the same client
}

// adapt returns the Client that calls makes, able to Clone itself.
func adapt(calls func() *Client) *Client {
	c := calls()
	c.calls = calls
	return c
}

// Clone returns a Client whose calls go through the same client under test
// (its settings, its connections) and keep their results apart from c's.
func (c *Client) Clone() *Client { return adapt(c.calls) }

// Split returns g Clients for g goroutines to call at once: c itself when
// g is 1, else g clones of it.
func (c *Client) Split(g int) []*Client {
	if g <= 1 {
		return []*Client{c}
	}
	cs := make([]*Client, g)
	for i := range cs {
		cs[i] = c.Clone()
	}
	return cs
}

// Run makes n calls of op in all, each of cs from a goroutine of its own
// (one Client from the calling goroutine), and returns the first error.
func Run(ctx context.Context, cs []*Client, op string, n int) error {
	if len(cs) == 1 {
		call := cs[0].Call[op]
		for range n {
			if err := call(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next  atomic.Int64
		first error
		once  sync.Once
		wg    sync.WaitGroup
	)
	for _, c := range cs {
		call := c.Call[op]
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := call(ctx); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	return first
}

// Check makes one call of op and compares its result with the expected one.
func (c *Client) Check(ctx context.Context, op string) error {
	if err := c.Call[op](ctx); err != nil {
		return fmt.Errorf("%s %s: %w", c.Name, op, err)
	}
	want := map[string]any{"ListPets": WantPets, "CreatePet": WantCreated, "GetPet": WantPet, OpListPetsNonASCII: WantPetsNonASCII}[op]
	if diff := cmp.Diff(want, c.Result[op]()); diff != "" {
		return fmt.Errorf("%s %s: result differs (-want +got):\n%s", c.Name, op, diff)
	}
	return nil
}

// NewClient returns the named client, sending to baseURL (ending in /v1)
// through hc; a nil hc stands for the client's default.
func NewClient(name, baseURL string, hc *http.Client) (*Client, error) {
	switch name {
	case "sdk":
		return newSDK(name, baseURL, hc)
	case "sdk+observer":
		// The SDK with WithObserver: an observer as a metrics counter is,
		// counting attempts by status (atomically: calls may run at once).
		var attempts [600]atomic.Int64
		return newSDK(name, baseURL, hc, petstore.WithObserver(func(_ context.Context, a petstore.Attempt) {
			if a.Status >= 0 && a.Status < len(attempts) {
				attempts[a.Status].Add(1)
			}
		}))
	case "sdk+transport":
		// The SDK through WithHTTPClient, as a user who brings a client
		// would: a plain *http.Transport, cloned from http.DefaultTransport.
		if hc == nil {
			hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		}
		return newSDK(name, baseURL, hc)
	case "ogen":
		return newOgen(baseURL, hc)
	case "oapi-codegen":
		return newOapi(baseURL, hc)
	case "hand":
		return newHand(baseURL, hc)
	case "floor":
		return newFloor(baseURL, hc)
	}
	return nil, fmt.Errorf("unknown client %q", name)
}

// Pooled is the http.Client of every client but the SDK's over loopback:
// net/http's default transport with an idle pool as large as the SDK's
// shared transport keeps (see petstore-go's internal/transport.Shared), so
// that 64 goroutines do not churn connections through a pool of 2 per host.
var Pooled = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	return &http.Client{Transport: t}
}()

// Loopback returns the named client, sending to the server at url (as
// http://127.0.0.1:port, without /v1), after checking one call of each
// operation. The SDK sends through its own shared transport (sdk+transport
// through a plain one of its own), the others through Pooled.
func Loopback(name, url string) (*Client, error) {
	hc := Pooled
	if name == "sdk" || name == "sdk+observer" || name == "sdk+transport" {
		hc = nil
	}
	c, err := NewClient(name, url+"/v1", hc)
	if err != nil {
		return nil, err
	}
	for _, op := range Ops {
		if err := c.Check(context.Background(), op); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// InProcess returns the named client over a Canned transport, after
// checking that one call of each operation sends the right request and
// decodes the right result.
func InProcess(name string) (*Client, error) {
	ct := &Canned{Check: true}
	c, err := NewClient(name, "http://127.0.0.1:1/v1", &http.Client{Transport: ct})
	if err != nil {
		return nil, err
	}
	for _, op := range Ops {
		if err := c.Check(context.Background(), op); err != nil {
			return nil, err
		}
	}
	ct.Check = false
	return c, nil
}
