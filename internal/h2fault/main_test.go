package h2fault_test

import (
	"os"
	"testing"

	"github.com/petstore/petstore-go/internal/leakcheck"
)

// TestMain fails the package if a test leaves a goroutine behind: a
// handler, a connection or a stream of the server still running.
func TestMain(m *testing.M) { os.Exit(leakcheck.Run(m, os.Stderr)) }
