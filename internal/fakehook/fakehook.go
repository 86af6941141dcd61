// Package fakehook carries what the fake decided about a request (the
// status it sent, its request id, whether a fault answered)
// from package petstoretest to a handler that wraps the fake's, through the
// request's context. cmd/petstore-fake logs it that way. It exists so that
// the program can log what only the fake knows without petstoretest
// exporting more than the API it promises.
package fakehook

import "context"

// Outcome is what the fake decided about one request. The fake fills it in
// before it sends the last byte of its answer (or drops the connection).
type Outcome struct {
	Status    int    // the status line sent; 0 when no answer was sent
	RequestID string // the X-Request-Id sent back
	Fault     bool   // a fault answered the request
}

type key struct{}

// NewContext returns ctx carrying o, for the fake to fill in.
func NewContext(ctx context.Context, o *Outcome) context.Context {
	return context.WithValue(ctx, key{}, o)
}

// FromContext returns the Outcome ctx carries, or nil.
func FromContext(ctx context.Context) *Outcome {
	o, _ := ctx.Value(key{}).(*Outcome)
	return o
}
