package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"github.com/google/go-cmp/cmp"
	petstore "github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/bench/handclient"
	"github.com/petstore/petstore-go/internal/bench/oapiclient"
	"github.com/petstore/petstore-go/internal/bench/ogenclient"
)

// Key is the API key every client sends.
const Key = "bench-key"

// Ops are the operations measured, in order.
var Ops = []string{"ListPets", "CreatePet", "GetPet"}

// Clients are the clients measured, in order.
var Clients = []string{"floor", "hand", "oapi-codegen", "ogen", "sdk", "sdk+observer"}

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
type Client struct {
	Name   string
	Call   map[string]func(context.Context) error
	Result map[string]func() any
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
		// counting attempts by status.
		var attempts [600]int
		return newSDK(name, baseURL, hc, petstore.WithObserver(func(_ context.Context, a petstore.Attempt) {
			if a.Status >= 0 && a.Status < len(attempts) {
				attempts[a.Status]++
			}
		}))
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

func newSDK(name, baseURL string, hc *http.Client, extra ...petstore.Option) (*Client, error) {
	opts := append([]petstore.Option{petstore.WithBaseURL(baseURL)}, extra...)
	if hc != nil {
		opts = append(opts, petstore.WithHTTPClient(hc))
	}
	c, err := petstore.NewClient(Key, opts...)
	if err != nil {
		return nil, err
	}
	var (
		pets []petstore.Pet
		pet  *petstore.Pet
		got  *petstore.Pet
	)
	return &Client{
		Name: name,
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 100})
				return err
			},
			OpListPetsNonASCII: func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, petstore.ListPetsParams{Limit: 100, Status: petstore.PetStatusAvailable})
				return err
			},
			"CreatePet": func(ctx context.Context) (err error) {
				pet, err = c.CreatePet(ctx, NewPet)
				return err
			},
			"GetPet": func(ctx context.Context) (err error) {
				//lint:ignore SA1019 the deprecated operation is measured too
				got, err = c.GetPet(ctx, 42)
				return err
			},
		},
		Result: map[string]func() any{
			"ListPets":  func() any { return pets },
			"CreatePet": func() any { return *pet },
			"GetPet":    func() any { return *got },

			OpListPetsNonASCII: func() any { return pets },
		},
	}, nil
}

// bearer is ogen's security source.
type bearer struct{}

func (bearer) BearerAuth(context.Context, ogenclient.OperationName) (ogenclient.BearerAuth, error) {
	return ogenclient.BearerAuth{Token: Key}, nil
}

func fromOgen(p ogenclient.Pet) petstore.Pet {
	return petstore.Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryId, Status: petstore.PetStatus(p.Status.Or(""))}
}

func newOgen(baseURL string, hc *http.Client) (*Client, error) {
	var opts []ogenclient.ClientOption
	if hc != nil {
		opts = append(opts, ogenclient.WithClient(hc))
	}
	c, err := ogenclient.NewClient(baseURL, bearer{}, opts...)
	if err != nil {
		return nil, err
	}
	var (
		pets *ogenclient.Pets
		pet  *ogenclient.Pet
		got  *ogenclient.Pet
	)
	newPet := &ogenclient.NewPet{Name: NewPet.Name, CategoryId: NewPet.CategoryID, Status: ogenclient.NewOptPetStatus(ogenclient.PetStatus(NewPet.Status))}
	return &Client{
		Name: "ogen",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				res, err := c.ListPets(ctx, ogenclient.ListPetsParams{Limit: ogenclient.NewOptInt(100)})
				if err != nil {
					return err
				}
				var ok bool
				if pets, ok = res.(*ogenclient.Pets); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				res, err := c.ListPets(ctx, ogenNonASCIIParams)
				return ogenPets(res, err, &pets)
			},
			"CreatePet": func(ctx context.Context) error {
				res, err := c.CreatePet(ctx, newPet)
				if err != nil {
					return err
				}
				var ok bool
				if pet, ok = res.(*ogenclient.Pet); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
			"GetPet": func(ctx context.Context) error {
				//lint:ignore SA1019 the deprecated operation is measured too
				res, err := c.GetPet(ctx, ogenclient.GetPetParams{PetId: 42})
				if err != nil {
					return err
				}
				var ok bool
				if got, ok = res.(*ogenclient.Pet); !ok {
					return fmt.Errorf("response %T", res)
				}
				return nil
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(*pets))
				for i, p := range *pets {
					out[i] = fromOgen(p)
				}
				return out
			},
			"CreatePet": func() any { return fromOgen(*pet) },
			"GetPet":    func() any { return fromOgen(*got) },

			OpListPetsNonASCII: func() any { return fromOgenPets(*pets) },
		},
	}, nil
}

func fromOapi(p oapiclient.Pet) petstore.Pet {
	out := petstore.Pet{ID: p.Id, Name: p.Name, CategoryID: p.CategoryId}
	if p.Status != nil {
		out.Status = petstore.PetStatus(*p.Status)
	}
	return out
}

func newOapi(baseURL string, hc *http.Client) (*Client, error) {
	auth := []string{"Bearer " + Key}
	opts := []oapiclient.ClientOption{oapiclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header["Authorization"] = auth
		return nil
	})}
	if hc != nil {
		opts = append(opts, oapiclient.WithHTTPClient(hc))
	}
	c, err := oapiclient.NewClientWithResponses(baseURL, opts...)
	if err != nil {
		return nil, err
	}
	var (
		pets []oapiclient.Pet
		pet  *oapiclient.Pet
		got  *oapiclient.Pet
	)
	limit := 100
	status := oapiclient.PetStatus(NewPet.Status)
	body := oapiclient.NewPet{Name: NewPet.Name, CategoryId: NewPet.CategoryID, Status: &status}
	return &Client{
		Name: "oapi-codegen",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				res, err := c.ListPetsWithResponse(ctx, &oapiclient.ListPetsParams{Limit: &limit})
				if err != nil {
					return err
				}
				if res.JSON200 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				pets = *res.JSON200
				return nil
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				res, err := c.ListPetsWithResponse(ctx, oapiNonASCIIParams())
				return oapiPets(res, err, &pets)
			},
			"CreatePet": func(ctx context.Context) error {
				res, err := c.CreatePetWithResponse(ctx, body)
				if err != nil {
					return err
				}
				if res.JSON201 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				pet = res.JSON201
				return nil
			},
			"GetPet": func(ctx context.Context) error {
				//lint:ignore SA1019 the deprecated operation is measured too
				res, err := c.GetPetWithResponse(ctx, 42)
				if err != nil {
					return err
				}
				if res.JSON200 == nil {
					return fmt.Errorf("status %d", res.StatusCode())
				}
				got = res.JSON200
				return nil
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(pets))
				for i, p := range pets {
					out[i] = fromOapi(p)
				}
				return out
			},
			"CreatePet": func() any { return fromOapi(*pet) },
			"GetPet":    func() any { return fromOapi(*got) },

			OpListPetsNonASCII: func() any { return fromOapiPets(pets) },
		},
	}, nil
}

func fromHand(p handclient.Pet) petstore.Pet {
	return petstore.Pet{ID: p.ID, Name: p.Name, CategoryID: p.CategoryID, Status: petstore.PetStatus(p.Status)}
}

func newHand(baseURL string, hc *http.Client) (*Client, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := handclient.New(baseURL, Key, hc)
	var (
		pets []handclient.Pet
		pet  *handclient.Pet
		got  *handclient.Pet
	)
	np := handclient.NewPet{Name: NewPet.Name, CategoryID: NewPet.CategoryID, Status: string(NewPet.Status)}
	return &Client{
		Name: "hand",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) (err error) {
				pets, err = c.ListPets(ctx, 100)
				return err
			},
			OpListPetsNonASCII: func(ctx context.Context) (err error) {
				pets, err = c.ListPetsByStatus(ctx, 100, "available")
				return err
			},
			"CreatePet": func(ctx context.Context) (err error) {
				pet, err = c.CreatePet(ctx, np)
				return err
			},
			"GetPet": func(ctx context.Context) (err error) {
				got, err = c.GetPet(ctx, 42)
				return err
			},
		},
		Result: map[string]func() any{
			"ListPets": func() any {
				out := make([]petstore.Pet, len(pets))
				for i, p := range pets {
					out[i] = fromHand(p)
				}
				return out
			},
			"CreatePet": func() any { return fromHand(*pet) },
			"GetPet":    func() any { return fromHand(*got) },

			OpListPetsNonASCII: func() any { return fromHandPets(pets) },
		},
	}, nil
}

// newFloor returns the floor: what any client of this API must do, and
// nothing more. A request out (the URL, headers and CreatePet's body made
// once), http.Client.Do, the body read; nothing encoded or decoded per call,
// no retry, no time limit. Its Result decodes the last body with
// encoding/json, outside the calls measured.
func newFloor(baseURL string, hc *http.Client) (*Client, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	auth := []string{"Bearer " + Key}
	newPet := mustJSON(NewPet)
	bodies := map[string][]byte{}
	do := func(ctx context.Context, op, method, url string, body []byte, want int) error {
		var r io.Reader
		if body != nil {
			r = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, url, r)
		if err != nil {
			return err
		}
		req.Header["Authorization"] = auth
		req.Header["Accept"] = jsonType
		if body != nil {
			req.Header["Content-Type"] = jsonType
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != want {
			return fmt.Errorf("%s %s: status %d", method, url, resp.StatusCode)
		}
		bodies[op] = data
		return nil
	}
	listURL, petsURL, petURL := baseURL+"/pets?limit=100", baseURL+"/pets", baseURL+"/pets/42"
	decode := func(op string, v any) any {
		if err := json.Unmarshal(bodies[op], v); err != nil {
			return err
		}
		return reflect.ValueOf(v).Elem().Interface()
	}
	return &Client{
		Name: "floor",
		Call: map[string]func(context.Context) error{
			"ListPets": func(ctx context.Context) error {
				return do(ctx, "ListPets", http.MethodGet, listURL, nil, http.StatusOK)
			},
			"CreatePet": func(ctx context.Context) error {
				return do(ctx, "CreatePet", http.MethodPost, petsURL, newPet, http.StatusCreated)
			},
			"GetPet": func(ctx context.Context) error {
				return do(ctx, "GetPet", http.MethodGet, petURL, nil, http.StatusOK)
			},
			OpListPetsNonASCII: func(ctx context.Context) error {
				return do(ctx, OpListPetsNonASCII, http.MethodGet, listURL+"&status=available", nil, http.StatusOK)
			},
		},
		Result: map[string]func() any{
			"ListPets":         func() any { return decode("ListPets", new([]petstore.Pet)) },
			"CreatePet":        func() any { return decode("CreatePet", new(petstore.Pet)) },
			"GetPet":           func() any { return decode("GetPet", new(petstore.Pet)) },
			OpListPetsNonASCII: func() any { return decode(OpListPetsNonASCII, new([]petstore.Pet)) },
		},
	}, nil
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
// operation. The SDK sends through its own shared transport, the others
// through Pooled.
func Loopback(name, url string) (*Client, error) {
	hc := Pooled
	if name == "sdk" || name == "sdk+observer" {
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
