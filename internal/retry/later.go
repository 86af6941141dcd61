package retry

// Later reports whether a call whose last attempt ended with a response of
// status, or with err, may be made again later, safely and with a chance of
// success: the policy's rules (see Retryable) without its waits, bounds and
// Retry-After. For a request with a body (not idempotent) that got no
// response, only when reached is false (no connection had, nothing sent)
// or refused is true (every send proven unprocessed), as
// transport.Result says. Whether the caller ended the call is for the
// caller of Later to tell.
func Later(idempotent bool, status int, err error, reached, refused bool) bool {
	switch {
	case err == nil:
		return RetryableStatus(idempotent, status)
	case !idempotent && reached && !refused:
		return false // it may have been processed
	}
	return retryableTransportError(err)
}
