package retry

import (
	"os"
	"testing"

	"github.com/petstore/petstore-go/internal/leakcheck"
)

// TestMain fails the package if a test leaves a goroutine behind.
func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m, os.Stderr)) }
