package petstore

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMESnippetsAreExamples checks that the README's Go snippets are the
// bodies of runnable Example functions, word for word, so that every snippet
// compiles, runs and prints what it says.
func TestREADMESnippetsAreExamples(t *testing.T) {
	t.Parallel()
	readme := read(t, "README.md")
	for file, names := range map[string][]string{
		"example_test.go":              {"Example", "ExampleAPIError", "ExampleAPIError_contextFirst", "ExampleClient_ListPets", "ExampleNewClient", "ExampleWithHTTPClient", "ExampleWithLogger", "ExampleWithObserver", "ExampleWithObserver_callMetrics"},
		"petstoretest/example_test.go": {"ExampleServer_InjectFault", "ExampleServer_Received"},
	} {
		src := read(t, file)
		for _, name := range names {
			body := exampleBody(t, src, name)
			if !strings.Contains(readme, "```go\n"+body+"\n```") {
				t.Errorf("README.md has no snippet equal to the body of %s in %s:\n%s", name, file, body)
			}
		}
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
