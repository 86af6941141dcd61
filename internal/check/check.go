// Package check holds a Pet Store deployment to its interface: one check
// per statement of the interface that a client can observe, each reported
// PASS or FAIL with what was seen, and INFO where the interface is silent.
// `petstore check` runs it against a live deployment; its tests run the same
// code against petstoretest (which must pass every check) and against
// deliberately broken fakes (each FAIL must be reachable).
//
// STUB: the API that cmd/petstore builds on; the checks come in their own
// change.
package check

import (
	"context"
	"errors"

	"github.com/petstore/petstore-go"
)

// Verdict is the first word of a check's line.
type Verdict string

// The verdicts.
const (
	Pass Verdict = "PASS" // the deployment does what the interface says
	Fail Verdict = "FAIL" // it does not: Detail says what was seen
	Info Verdict = "INFO" // the interface is silent: Detail says what was seen
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
	APIKey  string            // "": $PETSTORE_API_KEY, as petstore.NewClient finds it
	Options []petstore.Option // how to reach it: base URL, retries, timeout, logger
	Write   bool              // also create one animal and send a body without a name
}

// Run runs every check in order and hands each result to report as soon as
// it is known. It returns the number of FAIL results. Its error is not nil
// only when the deployment cannot be checked at all: petstore.NewClient
// refuses the configuration (a missing key included), or the first call
// with the key fails (transport error, timeout, 401, 5xx after retries); the
// error wraps the SDK's, so errors.Is works on it.
func Run(ctx context.Context, cfg Config, report func(Result)) (fails int, err error) {
	return 0, errors.New("check: not implemented")
}

// IsProduction reports whether baseURL's host is petstore.ProductionURL's
// host, in any letter case, with or without :443: where check -write must
// not write unless told.
func IsProduction(baseURL string) bool { return false }
