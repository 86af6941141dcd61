package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// specPath is the OpenAPI description the tests hold the SDK and the fake to.
const specPath = "../openapi/petstore.yaml"

// loadSpec loads and validates the description, with baseURL (a fake's URL,
// including /v1) as its only server, so that routes match loopback requests.
func loadSpec(t *testing.T, baseURL string) (*openapi3.T, routers.Router) {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(specPath)
	if err != nil {
		t.Fatalf("loading %s: %v", specPath, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("%s is not a valid OpenAPI description: %v", specPath, err)
	}
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("routing %s: %v", specPath, err)
	}
	return doc, router
}

// bearerAuth accepts a request whose Authorization header has the form
// "Bearer <token>", the description's only security scheme. Whether the
// token is the right one is the server's business (401), not the contract's.
func bearerAuth(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecuritySchemeName != "bearerAuth" {
		return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return errors.New(`no "Authorization: Bearer <token>" header`)
	}
	return nil
}

var (
	requestOptions  = &openapi3filter.Options{AuthenticationFunc: bearerAuth, SkipSettingDefaults: true, MultiError: true}
	responseOptions = &openapi3filter.Options{AuthenticationFunc: bearerAuth, IncludeResponseStatus: true, MultiError: true}
)

// exchange is one request and its response, as seen by a validator.
type exchange struct {
	operation string // operationId, "" when no route matched
	status    int
	// documented: the description lists the status for the operation;
	// when it does not, respErr says so.
	documented bool
	reqErr     error // the request's violations of the description
	respErr    error // the response's
}

// coverage records which documented responses the tests saw, per
// "operationId status"; it is shared by the subtests of a test.
type coverage struct {
	mu   sync.Mutex
	seen map[string]int
}

func (c *coverage) add(operation string, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[fmt.Sprintf("%s %d", operation, status)]++
}

// missing returns the documented responses of doc that were never seen.
func (c *coverage) missing(doc *openapi3.T) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var want []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for code := range op.Responses.Map() {
				want = append(want, op.OperationID+" "+code)
			}
		}
	}
	slices.Sort(want)
	var missing []string
	for _, w := range want {
		if c.seen[w] == 0 {
			missing = append(missing, w)
		}
	}
	return missing
}

// check validates one request (whose body is body) against the description,
// sends it with send, and validates the response. It returns the response
// with its body readable again.
func check(router routers.Router, req *http.Request, body []byte, send func(*http.Request) (*http.Response, error)) (*http.Response, exchange, error) {
	var ex exchange
	vreq := req.Clone(req.Context())
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	vreq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }

	route, params, err := router.FindRoute(vreq)
	var in *openapi3filter.RequestValidationInput
	if err != nil {
		ex.reqErr = fmt.Errorf("no operation in the description: %w", err)
	} else {
		ex.operation = route.Operation.OperationID
		in = &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: requestOptions}
		ex.reqErr = openapi3filter.ValidateRequest(req.Context(), in)
	}

	resp, err := send(req)
	if err != nil {
		return nil, ex, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, ex, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	ex.status = resp.StatusCode

	if in != nil {
		rin := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: responseOptions},
			Status:                 resp.StatusCode,
			Header:                 resp.Header,
			Options:                responseOptions,
		}
		rin.SetBodyBytes(data)
		ex.documented = route.Operation.Responses.Status(resp.StatusCode) != nil
		ex.respErr = openapi3filter.ValidateResponse(req.Context(), rin)
		if ex.respErr == nil && route.Operation.Deprecated &&
			(resp.Header.Get("Deprecation") == "" || resp.Header.Get("Sunset") == "") {
			ex.respErr = errors.New("a deprecated operation answered without Deprecation and Sunset headers")
		}
		if ex.respErr != nil {
			ex.respErr = fmt.Errorf("%w\nresponse body: %s", ex.respErr, data)
		}
	}
	return resp, ex, nil
}

// transport is an http.RoundTripper for petstore.WithHTTPClient: it fails the
// test on any request the SDK sends, or response it gets, that the
// description does not allow, and records the responses it saw.
type transport struct {
	t      *testing.T
	router routers.Router
	cov    *coverage
	base   http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	resp, ex, err := check(tr.router, req, body, func(*http.Request) (*http.Response, error) {
		return tr.base.RoundTrip(out)
	})
	if ex.reqErr != nil {
		tr.t.Errorf("the SDK sent %s %s, which the OpenAPI description does not allow:\n%v", req.Method, req.URL.RequestURI(), ex.reqErr)
	}
	if err != nil {
		return nil, err
	}
	if ex.respErr != nil {
		tr.t.Errorf("the fake answered %s %s with %d, which the OpenAPI description does not allow:\n%v", req.Method, req.URL.RequestURI(), ex.status, ex.respErr)
	}
	if ex.operation != "" {
		tr.cov.add(ex.operation, ex.status)
	}
	return resp, nil
}
