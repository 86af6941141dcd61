package retry

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/petstore/petstore-go/internal/transport"
)

// TestLater: a call is retryable later exactly when the policy retries
// it: on its statuses and transport errors, a request with a body only
// when every send was refused (no connection had, or dropped unread).
func TestLater(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset by peer")
	tests := []struct {
		name                   string
		status                 int
		err                    error
		reached                bool // with err: a send may have been processed (else every send was refused)
		wantIdempotent, wantPO bool
	}{
		{"429", 429, nil, true, true, true},
		{"503", 503, nil, true, true, false},
		{"408", 408, nil, true, true, false},
		{"400", 400, nil, true, false, false},
		{"501", 501, nil, true, false, false},
		{"reset after sending", 0, reset, true, true, false},
		{"nothing sent, or every send refused", 0, reset, false, true, true},
		{"the attempt's time ran out before a connection", 0, context.DeadlineExceeded, false, true, false},
		{"untrusted certificate, nothing sent", 0, x509.UnknownAuthorityError{}, false, false, false},
		{"body too large", 200, fmt.Errorf("reading: %w", transport.ErrBodyTooLarge), true, false, false},
	}
	for _, tc := range tests {
		for _, idempotent := range []bool{true, false} {
			want := tc.wantPO
			if idempotent {
				want = tc.wantIdempotent
			}
			r := transport.Result{Status: int32(tc.status), Err: tc.err, Reached: tc.reached, Refused: tc.err != nil && !tc.reached}
			if got := Later(idempotent, &r); got != want {
				t.Errorf("%s: Later(idempotent %v) = %v; want %v", tc.name, idempotent, got, want)
			}
		}
	}
}
