//go:build unix

package nginxtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/petstore/petstore-go"
)

// Caller makes the API's three calls one way: through the SDK, or by hand
// with net/http.
type Caller interface {
	ListPets(ctx context.Context) error
	CreatePet(ctx context.Context, name string) (id int64, err error)
	GetPet(ctx context.Context, id int64) error
}

// Load is a run of calls: Goroutines goroutines share Calls calls, in
// turn a CreatePet (named Prefix and the call's number, so every name is
// unique), a ListPets and a GetPet of the animal the goroutine created last.
// After the calls numbered in ReloadAt have ended, Reload runs.
type Load struct {
	Goroutines int
	Calls      int
	Prefix     string
	ReloadAt   []int
	Reload     func() error
}

// Result is what a Load saw, counted call by call.
type Result struct {
	Calls     map[string]int             // calls made, by operation
	Errors    []CallError                // the calls that returned an error, in no order
	Created   []string                   // the names of the animals CreatePet returned
	Latency   map[string][]time.Duration // by operation, sorted; "" for all
	Reloaded  int                        // reloads done
	ReloadErr error                      // the first error of Reload, if any
}

// CallError is a call that failed.
type CallError struct {
	Operation string
	Name      string // CreatePet's name
	Err       error
}

// Run runs l with c and returns what it saw.
func Run(ctx context.Context, c Caller, l Load) Result {
	var (
		next, ended atomic.Int64
		mu          sync.Mutex
		wg          sync.WaitGroup
		res         = Result{Calls: map[string]int{}, Latency: map[string][]time.Duration{}}
	)
	reloadAt := map[int64]bool{}
	for _, n := range l.ReloadAt {
		reloadAt[int64(n)] = true
	}
	for range l.Goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lastID int64
			latency := map[string][]time.Duration{}
			var errs []CallError
			var created []string
			for {
				n := next.Add(1) - 1
				if n >= int64(l.Calls) {
					break
				}
				op, name := "ListPets", ""
				switch {
				case n%3 == 0:
					op, name = "CreatePet", fmt.Sprintf("%s-%06d", l.Prefix, n)
				case n%3 == 2 && lastID != 0:
					op = "GetPet"
				}
				start := time.Now()
				var err error
				switch op {
				case "CreatePet":
					var id int64
					if id, err = c.CreatePet(ctx, name); err == nil {
						lastID = id
						created = append(created, name)
					}
				case "GetPet":
					err = c.GetPet(ctx, lastID)
				default:
					err = c.ListPets(ctx)
				}
				latency[op] = append(latency[op], time.Since(start))
				if err != nil {
					errs = append(errs, CallError{Operation: op, Name: name, Err: err})
				}
				if reloadAt[ended.Add(1)] && l.Reload != nil {
					rerr := l.Reload()
					mu.Lock()
					res.Reloaded++
					if res.ReloadErr == nil {
						res.ReloadErr = rerr
					}
					mu.Unlock()
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for op, ds := range latency {
				res.Calls[op] += len(ds)
				res.Latency[op] = append(res.Latency[op], ds...)
				res.Latency[""] = append(res.Latency[""], ds...)
			}
			res.Errors = append(res.Errors, errs...)
			res.Created = append(res.Created, created...)
		}()
	}
	wg.Wait()
	for _, ds := range res.Latency {
		slices.Sort(ds)
	}
	return res
}

// Percentile returns the p-th percentile (0 < p <= 100) of sorted, by the
// nearest-rank method; 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// Clients are the callers NewCaller makes by default (it also makes
// "noretry").
var Clients = []string{"default", "client", "nethttp"}

// NewCaller returns the caller kind stands for, calling baseURL with key
// and a User-Agent starting with ua: "default", the SDK through its default
// transport; "noretry", the same with WithMaxRetries(0) (a caller with a
// retry layer of its own); "client", the SDK through WithHTTPClient;
// "nethttp", requests by hand. The last two go through a plain
// *http.Transport that trusts pool and speaks HTTP/2 where the server
// offers it.
func NewCaller(kind, baseURL, key, ua string, pool *x509.CertPool) (Caller, error) {
	plain := &http.Transport{ForceAttemptHTTP2: true, TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64}
	opts := []petstore.Option{petstore.WithBaseURL(baseURL), petstore.WithUserAgent(ua), petstore.WithObserver(Observer)}
	switch kind {
	case "default":
		c, err := petstore.NewClient(key, opts...)
		return &SDK{Client: c}, err
	case "noretry":
		c, err := petstore.NewClient(key, append(opts, petstore.WithMaxRetries(0))...)
		return &SDK{Client: c}, err
	case "client":
		c, err := petstore.NewClient(key, append(opts, petstore.WithHTTPClient(&http.Client{Transport: plain}))...)
		return &SDK{Client: c}, err
	case "nethttp":
		return &NetHTTP{Client: &http.Client{Transport: plain}, BaseURL: baseURL, Key: key, UserAgent: ua}, nil
	}
	return nil, fmt.Errorf("unknown client %q", kind)
}

// SDK is a Caller through a petstore.Client. Its calls' contexts carry an
// attemptCount for Observer.
type SDK struct {
	Client *petstore.Client

	mu       sync.Mutex
	attempts AttemptCounts
}

// AttemptCounts counts what WithObserver reported of the SDK's attempts.
type AttemptCounts struct {
	Attempts          int            // attempts made
	Failed            int            // attempts with Err != nil or Retry
	Retries           int            // attempts reported with Retry
	CallsWithFailures int            // calls that had at least one such attempt
	Errs              map[string]int // the failed attempts' Err texts (or status, for a retry on a status), by count
}

// attemptCount is one call's share of AttemptCounts.
type attemptCount struct {
	attempts, failed, retries int
	errs                      []string
}

type attemptKey struct{}

// Observer is the function to give WithObserver: it counts a call's
// attempts in the context SDK put there.
func Observer(ctx context.Context, a petstore.Attempt) {
	c, ok := ctx.Value(attemptKey{}).(*attemptCount)
	if !ok {
		return
	}
	c.attempts++
	if a.Retry {
		c.retries++
	}
	if a.Err != nil || a.Retry {
		c.failed++
		what := "status " + strconv.Itoa(a.Status)
		if a.Err != nil {
			what = a.Err.Error()
		}
		c.errs = append(c.errs, a.Operation+": "+what)
	}
}

// Attempts returns what Observer counted so far.
func (s *SDK) Attempts() AttemptCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.attempts
	a.Errs = map[string]int{}
	for k, v := range s.attempts.Errs {
		a.Errs[k] = v
	}
	return a
}

// call runs f with a context that counts its attempts, and adds them up.
func (s *SDK) call(ctx context.Context, f func(context.Context) error) error {
	c := new(attemptCount)
	err := f(context.WithValue(ctx, attemptKey{}, c))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts.Attempts += c.attempts
	s.attempts.Failed += c.failed
	s.attempts.Retries += c.retries
	if c.failed > 0 {
		s.attempts.CallsWithFailures++
	}
	if s.attempts.Errs == nil {
		s.attempts.Errs = map[string]int{}
	}
	for _, e := range c.errs {
		s.attempts.Errs[e]++
	}
	return err
}

// ListPets lists the first 20 animals.
func (s *SDK) ListPets(ctx context.Context) error {
	return s.call(ctx, func(ctx context.Context) error {
		_, err := s.Client.ListPets(ctx, petstore.ListPetsParams{})
		return err
	})
}

// CreatePet creates an animal named name.
func (s *SDK) CreatePet(ctx context.Context, name string) (id int64, err error) {
	err = s.call(ctx, func(ctx context.Context) error {
		pet, err := s.Client.CreatePet(ctx, petstore.NewPet{Name: name, CategoryID: 1})
		if err == nil {
			id = pet.ID
		}
		return err
	})
	return id, err
}

// GetPet gets the animal id.
func (s *SDK) GetPet(ctx context.Context, id int64) error {
	return s.call(ctx, func(ctx context.Context) error {
		//lint:ignore SA1019 GetPet is deprecated, and still served: the load mixes all three operations.
		_, err := s.Client.GetPet(ctx, id)
		return err
	})
}

// NetHTTP is a Caller that writes each request by hand and sends it with
// Client.Do, once: what a user of plain net/http does. It counts how many
// times net/http sent each request (httptrace's GotConn, which net/http
// calls for every send, its own resends included).
type NetHTTP struct {
	Client    *http.Client
	BaseURL   string // ending in /v1
	Key       string
	UserAgent string

	mu    sync.Mutex
	sends map[int]int
}

// Sends returns how many calls net/http sent once, twice, and so on.
func (h *NetHTTP) Sends() map[int]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.sends)
}

// ListPets lists the first 20 animals.
func (h *NetHTTP) ListPets(ctx context.Context) error {
	var pets []petstore.Pet
	return h.do(ctx, http.MethodGet, "/pets", nil, &pets)
}

// CreatePet creates an animal named name.
func (h *NetHTTP) CreatePet(ctx context.Context, name string) (int64, error) {
	body, err := json.Marshal(petstore.NewPet{Name: name, CategoryID: 1})
	if err != nil {
		return 0, err
	}
	var pet petstore.Pet
	err = h.do(ctx, http.MethodPost, "/pets", body, &pet)
	return pet.ID, err
}

// GetPet gets the animal id.
func (h *NetHTTP) GetPet(ctx context.Context, id int64) error {
	var pet petstore.Pet
	return h.do(ctx, http.MethodGet, "/pets/"+strconv.FormatInt(id, 10), nil, &pet)
}

// do sends one request (a body, if any, from a bytes.Reader, so that
// net/http may resend it where it knows it was not processed) and decodes
// a 2xx answer into v.
func (h *NetHTTP) do(ctx context.Context, method, path string, body []byte, v any) error {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.BaseURL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+h.Key)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", h.UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	var sends atomic.Int32
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { sends.Add(1) },
	}))
	resp, err := h.Client.Do(req)
	h.mu.Lock()
	if h.sends == nil {
		h.sends = map[int]int{}
	}
	h.sends[int(sends.Load())]++
	h.mu.Unlock()
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 10<<20))
	if err != nil {
		return fmt.Errorf("%s %s: reading the body: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %.200s", method, path, resp.Status, data)
	}
	return json.Unmarshal(data, v)
}
