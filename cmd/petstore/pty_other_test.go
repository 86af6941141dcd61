//go:build !linux

package main

import "testing"

// runOnTerminal skips: the tests open a pseudo-terminal only on Linux.
func runOnTerminal(t *testing.T, _ []string, _ ...string) string {
	t.Helper()
	t.Skip("no pseudo-terminal for the tests on this system")
	return ""
}
