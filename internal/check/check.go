// Package check holds a Pet Store deployment to its interface: one check
// per statement of the interface that a client can observe, each reported
// PASS or FAIL with what was seen, and INFO where the interface is silent.
// `petstore check` runs it against a live deployment; its tests run the same
// code against petstoretest (which must pass every check) and against
// deliberately broken fakes (each FAIL must be reachable).
//
// The checks go through the SDK, so that its key handling, URL resolution,
// retries and error redaction are the ones a program gets. Where a check
// needs what the SDK hides or refuses to send (the status of a 2xx, a
// header, the raw body; a limit of 101, a request without a key or a body
// without a name), its client sends through a transport that rewrites the
// request or keeps a copy of the response (see capture).
package check

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/petstore/petstore-go"
	"github.com/petstore/petstore-go/internal/redact"
)

// Verdict is the first word of a check's line.
type Verdict string

// The verdicts.
const (
	Pass Verdict = "PASS" // the deployment does what the interface says
	Fail Verdict = "FAIL" // it does not: Detail says what was seen
	Info Verdict = "INFO" // the interface is silent, or the check could not be made: Detail says what was seen
)

// Result is the outcome of one check.
type Result struct {
	Verdict Verdict
	Name    string // short and stable, e.g. "auth-wrong-key"
	Detail  string // what was seen; never the key
}

// String returns the result as one line: "PASS name: detail".
func (r Result) String() string { return string(r.Verdict) + " " + r.Name + ": " + r.Detail }

// Config says which deployment to check and how.
type Config struct {
	APIKey string // "": $PETSTORE_API_KEY, as petstore.NewClient finds it
	// Options say how to reach the deployment: base URL, retries, timeout,
	// logger. Run sends through an HTTP transport of its own, a clone of
	// http.DefaultTransport (which reads the proxy from the environment), or
	// http.DefaultTransport itself if a program replaced it with another
	// kind: a WithHTTPClient among them is overridden.
	Options []petstore.Option
	Write   bool // also create one animal and send a body without a name
}

// Run runs every check in order and hands each result to report as soon as
// it is known. It returns the number of FAIL results. Its error is not nil
// only when the deployment cannot be checked at all: petstore.NewClient
// refuses the configuration (a missing key included), or the first call
// with the key fails (transport error, timeout, 401, 5xx after retries); the
// error wraps the SDK's, so errors.Is works on it. A context that ends
// during the checks ends them too, with its error (the results reported
// until then stand).
func Run(ctx context.Context, cfg Config, report func(Result)) (fails int, err error) {
	s := &run{cfg: cfg, base: http.DefaultTransport} // replaced by a mock, say
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		base := t.Clone()
		defer base.CloseIdleConnections()
		s.base = base
	}
	if s.main, s.cap, err = s.client(cfg.APIKey, nil); err != nil {
		return 0, fmt.Errorf("check: %w", err)
	}
	if err := s.gate(ctx); err != nil {
		return 0, err
	}
	for _, c := range checks {
		if c.write && !cfg.Write {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fails, fmt.Errorf("check: %s: %w", c.name, err)
		}
		r := c.run(s, ctx)
		if err := ctx.Err(); err != nil { // what the check saw is the context's end
			return fails, fmt.Errorf("check: %s: %w", c.name, err)
		}
		r.Name, r.Detail = c.name, s.red.String(r.Detail)
		if r.Verdict == Fail {
			fails++
		}
		if report != nil {
			report(r)
		}
	}
	return fails, nil
}

// checks are the checks, in the order Run runs them: the read-only ones,
// the ones that write (only with Config.Write), and last pet-fields, which
// looks at every Pet body the others received.
var checks = []struct {
	name  string
	write bool // creates an animal, or may
	run   func(*run, context.Context) Result
}{
	{"auth-missing-key", false, (*run).authMissingKey},
	{"auth-wrong-key", false, (*run).authWrongKey},
	{"list-default-limit", false, (*run).listDefaultLimit},
	{"list-limit", false, (*run).listLimit},
	{"list-status-available", false, statusCheck(petstore.PetStatusAvailable)},
	{"list-status-pending", false, statusCheck(petstore.PetStatusPending)},
	{"list-status-sold", false, statusCheck(petstore.PetStatusSold)},
	{"get-pet", false, (*run).getPet},
	{"get-pet-absent", false, (*run).getPetAbsent},
	{"get-pet-deprecation", false, (*run).getPetDeprecation},
	{"list-limit-101", false, (*run).listLimit101},
	{"create-pet", true, (*run).createPet},
	{"create-default-status", true, (*run).createDefaultStatus},
	{"create-get-pet", true, (*run).createGetPet},
	{"create-missing-name", true, (*run).createMissingName},
	{"pet-fields", false, (*run).petFields},
}

// run is the state of one Run: its clients, and what the checks saw that
// later ones use.
type run struct {
	cfg  Config
	base http.RoundTripper // under every client of the run
	main *petstore.Client  // with the key, sending as the SDK does
	cap  *capture          // main's
	red  *redact.Redactor  // finds the key the main client sent

	first    []petstore.Pet // the gate's ListPets (no limit)
	firstErr error          // a 2xx the SDK refused
	all      []petstore.Pet // ListPets with limit 100, made once (see listAll)
	allErr   error
	allDone  bool
	bodies   []body        // every 2xx body that is Pets or a Pet, for pet-fields
	getHead  http.Header   // of the first GetPet response
	created  *petstore.Pet // by create-pet
	category int64         // the categoryId create-pet sends
}

// client returns a Client with key and cfg.Options that sends through a
// new capture over r.base, which rewrites each request with rewrite if
// that is not nil.
func (r *run) client(key string, rewrite func(*http.Request) *http.Request) (*petstore.Client, *capture, error) {
	c := &capture{base: r.base, rewrite: rewrite}
	opts := append(append([]petstore.Option(nil), r.cfg.Options...), petstore.WithHTTPClient(&http.Client{Transport: c}))
	pc, err := petstore.NewClient(key, opts...)
	return pc, c, err
}

// gate makes the first call, ListPets without parameters. Its error is
// Run's: any error but a 2xx the SDK refused (which list-default-limit and
// pet-fields report) means the deployment cannot be checked.
func (r *run) gate(ctx context.Context) error {
	r.first, r.firstErr = r.main.ListPets(ctx, petstore.ListPetsParams{})
	x := r.cap.last()
	r.red = redact.New(x.token)
	if r.firstErr != nil && (ctx.Err() != nil || !x.success()) {
		return fmt.Errorf("check: the first call failed: %w", r.firstErr)
	}
	r.keep(r.cap, true)
	return nil
}

// IsProduction reports whether baseURL's host is petstore.ProductionURL's
// host, in any letter case, with or without :443: where check -write must
// not write unless told. The scheme does not matter (http:// to that host
// still reaches production, with PETSTORE_INSECURE_HTTP), nor does a
// trailing dot (petstore.example.com. is the same DNS name); another port
// is another server. An empty baseURL is what NewClient resolves to
// ProductionURL when PETSTORE_BASE_URL is unset, so it reports true:
// resolve the environment first. An unparsable URL reports false (NewClient
// refuses it).
func IsProduction(baseURL string) bool {
	if baseURL == "" {
		return true
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	prod, _ := url.Parse(petstore.ProductionURL)
	host := strings.TrimSuffix(u.Hostname(), ".")
	port, err := strconv.Atoi(u.Port()) // as the dialer reads it: 0443 is 443
	return host != "" && strings.EqualFold(host, prod.Hostname()) && (u.Port() == "" || err == nil && port == 443)
}
