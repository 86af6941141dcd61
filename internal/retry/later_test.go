package retry

import (
	"crypto/x509"
	"errors"
	"fmt"
	"testing"

	"github.com/petstore/petstore-go/internal/transport"
)

// TestLater: a call is retryable later on the statuses and transport
// errors the policy retries, a request with a body only when it was not
// reached or was refused.
func TestLater(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset by peer")
	tests := []struct {
		name                   string
		status                 int
		err                    error
		reached, refused       bool
		wantIdempotent, wantPO bool
	}{
		{"429", 429, nil, true, false, true, true},
		{"503", 503, nil, true, false, true, false},
		{"408", 408, nil, true, false, true, false},
		{"400", 400, nil, true, false, false, false},
		{"501", 501, nil, true, false, false, false},
		{"reset after sending", 0, reset, true, false, true, false},
		{"nothing sent", 0, reset, false, false, true, true},
		{"every send refused", 0, reset, false, true, true, true},
		{"untrusted certificate, nothing sent", 0, x509.UnknownAuthorityError{}, false, false, false, false},
		{"body too large", 200, fmt.Errorf("reading: %w", transport.ErrBodyTooLarge), true, false, false, false},
	}
	for _, tc := range tests {
		for _, idempotent := range []bool{true, false} {
			want := tc.wantPO
			if idempotent {
				want = tc.wantIdempotent
			}
			if got := Later(idempotent, tc.status, tc.err, tc.reached, tc.refused); got != want {
				t.Errorf("%s: Later(idempotent %v) = %v; want %v", tc.name, idempotent, got, want)
			}
		}
	}
}
