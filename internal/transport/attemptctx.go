package transport

// The attempt as a context.Context: the context of each attempt's request.

import (
	"context"
	"time"
)

// Deadline returns the call's context's deadline: the attempt's own time
// limit is a timer (see newAttempt), as it was under context.WithCancel.
func (a *attempt) Deadline() (time.Time, bool) { return a.parent.Deadline() }

// Done returns a channel that is closed when the attempt's context ends. It
// is made on the first call: an attempt that nobody asks for it costs none.
//
// Through a RoundTripper other than net/http's *http.Transport (wrapped),
// it is the Done of a context.WithCancelCause made then (inner), which Value
// hands to the context package: a RoundTripper that wraps the request's
// context in one of its own (as otelhttp's does) passes a context that has
// no AfterFunc to net/http, whose child would then watch the attempt in a
// goroutine of its own; under inner it registers in inner's map instead.
func (a *attempt) Done() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.wrapped {
		if a.inner == nil {
			a.inner, a.cancelIn = context.WithCancelCause(context.Background())
			if a.cause != nil {
				a.cancelIn(a.cause)
			}
		}
		return a.inner.Done()
	}
	if a.done == nil {
		a.done = make(chan struct{})
		if a.cause != nil {
			close(a.done)
		}
	}
	return a.done
}

// Err returns nil until the attempt's context ends; then the call's
// context's error if that ended it, else context.Canceled.
func (a *attempt) Err() error {
	a.mu.Lock()
	cause, byCall := a.cause, a.byCall
	a.mu.Unlock()
	switch {
	case cause == nil:
		return nil
	case byCall:
		return a.parent.Err() // set for good before parentDone ran
	}
	return context.Canceled
}

// cancelKey is the key under which the context package looks up a
// context's *cancelCtx (see parentCancelCtx in its source). The key is not
// exported, so it is learnt once, as traceKey is: context.Cause asks a
// context that has ended for it. Should that ever find nothing, a child
// under a wrapped context watches the attempt in a goroutine, as under any
// context not of the context package's.
var cancelKey = func() any {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	k := keyRecorder{Context: ended}
	_ = context.Cause(&k)
	return k.key
}()

// innerValue returns inner's Value for cancelKey (the *cancelCtx, so that
// the context package registers a child there, see Done), and reports
// whether key is cancelKey and inner is made.
func (a *attempt) innerValue(key any) (any, bool) {
	if key != cancelKey || cancelKey == nil {
		return nil, false
	}
	a.mu.Lock()
	inner := a.inner
	a.mu.Unlock()
	if inner == nil {
		return nil, false
	}
	return inner.Value(key), true
}

// String names the context, as the context package's own do.
func (a *attempt) String() string { return "petstore attempt" }

// endedBy returns why the attempt's context ended: the call's context's
// cause, or errAttemptTimeout, errAttemptDone, errBodyRead or a refusal's
// error; nil while it has not.
func (a *attempt) endedBy() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cause
}

// parentDone ends the attempt because the call's context has ended
// (context.AfterFunc runs it): its context, and the body being read.
func (a *attempt) parentDone() {
	a.endCtx(true, context.Cause(a.parent))
	a.end()
}

// cancel ends the attempt's context for cause, one of the attempt's own.
func (a *attempt) cancel(cause error) {
	a.endCtx(false, cause)
}

// endCtx ends the attempt's context, byCall (the call's context ended) or
// not, with cause (never nil), if it has not ended yet: it closes Done and
// runs what AfterFunc registered.
func (a *attempt) endCtx(byCall bool, cause error) {
	a.mu.Lock()
	if a.cause != nil {
		a.mu.Unlock()
		return
	}
	a.cause, a.byCall = cause, byCall
	first, more := a.after.take()
	if a.done != nil {
		close(a.done)
	}
	if a.cancelIn != nil {
		a.cancelIn(cause) // cancels inner's children, not the attempt: no lock is taken again
	}
	if a.waiting {
		a.waiting = false
		a.waiter.Done()
	}
	a.mu.Unlock()
	if first != nil {
		first()
	}
	for _, f := range more {
		f()
	}
}

// AfterFunc arranges for f to run once the attempt's context ends, and
// returns a function that stops that, as context.AfterFunc does. The
// context package looks for this method on a parent that is not one of its
// own: a child made with context.WithCancel (net/http makes one for every
// request) then registers here, rather than in a map of children, or in a
// goroutine of its own, that the parent would allocate. f runs on the
// goroutine that ends the context, as a context.cancelCtx cancels its
// children; the context package's f only cancels its child.
func (a *attempt) AfterFunc(f func()) func() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cause != nil {
		go f()
		return func() bool { return false }
	}
	return a.after.add(a, f, &a.afterUsed)
}

// afterFuncs holds what AfterFunc registered: the first function (net/http's
// child context, on every attempt) in a field, any others in a slice.
type afterFuncs struct {
	first func()
	more  *[]*afterFunc
}

// afterFunc is a function registered after the first.
type afterFunc struct{ f func() }

// add registers f (a.mu held) and returns its stop function; used says
// whether the first field has been used.
func (r *afterFuncs) add(a *attempt, f func(), used *bool) func() bool {
	if !*used {
		r.first, *used = f, true
		return a.stopFirst
	}
	af := &afterFunc{f: f}
	if r.more == nil {
		r.more = new([]*afterFunc)
	}
	*r.more = append(*r.more, af)
	return func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		stopped := af.f != nil
		af.f = nil
		return stopped
	}
}

// take returns what is registered and not stopped, and forgets it (a.mu
// held).
func (r *afterFuncs) take() (first func(), more []func()) {
	first = r.first
	if r.more == nil {
		r.first = nil
		return first, nil
	}
	for _, af := range *r.more {
		if af.f != nil {
			more = append(more, af.f)
			af.f = nil
		}
	}
	r.first, r.more = nil, nil
	return first, more
}

// stopFirst is the stop function of the first function AfterFunc
// registered: it reports whether it stopped it from running.
func (a *attempt) stopFirst() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	stopped := a.after.first != nil
	a.after.first = nil
	return stopped
}
