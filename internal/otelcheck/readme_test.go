package otelcheck

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippet checks that docs/observability.md's tracing snippet is the body of
// Example_tracing, word for word, so that it compiles against the pinned
// otelhttp. It mirrors the root module's TestREADMESnippetsAreExamples, which
// cannot hold this Example: otel must not reach the SDK's go.mod.
func TestREADMESnippet(t *testing.T) {
	t.Parallel()
	readme := read(t, "../../docs/observability.md")
	body := exampleBody(t, read(t, "example_test.go"), "Example_tracing")
	if !strings.Contains(readme, "```go\n"+body+"\n```") {
		t.Errorf("docs/observability.md has no snippet equal to the body of Example_tracing:\n%s", body)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exampleBody returns the body of func name in src, one tab less indented.
func exampleBody(t *testing.T, src, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?ms)^func ` + name + `\(\) \{\n(.*?)\n\}\n`).FindStringSubmatch(src)
	if m == nil {
		t.Fatalf("no func %s", name)
	}
	lines := strings.Split(m[1], "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "\t")
	}
	return strings.Join(lines, "\n")
}
