package retry

import "github.com/petstore/petstore-go/internal/transport"

// Later reports whether a call whose last attempt ended with r may be made
// again later, safely and with a chance of success: the policy's own rule
// (retryable), without its waits, bounds and Retry-After. Whether the
// caller ended the call is for the caller of Later to tell.
func Later(idempotent bool, r *transport.Result) bool {
	return Policy{Idempotent: idempotent}.retryable(r, RetryAfter{})
}
