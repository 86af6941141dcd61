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

// Walk, carried by a request's context to the fake's handler, asks the fake
// to hand over its journal instead of answering: the handler calls it with
// each entry (a petstoretest.Request), oldest first, until it returns false,
// and neither answers nor records the request. The entries share their
// Query, Header and Body with the journal: read them, change nothing, keep
// nothing. It lets cmd/petstore-fake write GET /_fake/requests entry by
// entry, without a copy of the whole journal.
type Walk func(entry any) bool

type walkKey struct{}

// WithWalk returns ctx carrying w, for the fake's handler.
func WithWalk(ctx context.Context, w Walk) context.Context {
	return context.WithValue(ctx, walkKey{}, w)
}

// WalkFromContext returns the Walk ctx carries, or nil.
func WalkFromContext(ctx context.Context) Walk {
	w, _ := ctx.Value(walkKey{}).(Walk)
	return w
}
