package petstore

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestREADMESnippetsAreExamples checks that the documentation's Go snippets
// (the README's and docs/*.md's) are the bodies of runnable Example
// functions, word for word, so that every snippet compiles, runs and prints
// what it says.
func TestREADMESnippetsAreExamples(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, file := range docFiles(t) {
		all.WriteString(read(t, file))
	}
	docs := all.String()
	for file, names := range map[string][]string{
		"example_test.go":              {"Example", "ExampleAPIError", "ExampleAPIError_contextFirst", "ExampleClient_ListPets", "ExampleNewClient", "ExampleWithHTTPClient", "ExampleWithLogger", "ExampleWithObserver_callMetrics"},
		"petstoretest/example_test.go": {"ExampleServer_InjectFault", "ExampleServer_Received"},
	} {
		src := read(t, file)
		for _, name := range names {
			body := exampleBody(t, src, name)
			if !strings.Contains(docs, "```go\n"+body+"\n```") {
				t.Errorf("no snippet of README.md or docs/ is equal to the body of %s in %s:\n%s", name, file, body)
			}
		}
	}
}

// TestDocLinks checks that every relative link of the documentation names a
// file that exists and, with a #fragment, a heading of that file.
func TestDocLinks(t *testing.T) {
	t.Parallel()
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range docFiles(t) {
		for _, m := range link.FindAllStringSubmatch(proseOf(read(t, file)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, fragment, _ := strings.Cut(target, "#")
			resolved := file
			if path != "" {
				resolved = filepath.Join(filepath.Dir(file), path)
				if _, err := os.Stat(resolved); err != nil {
					t.Errorf("%s: link %s: %v", file, target, err)
					continue
				}
			}
			if fragment != "" && !headingAnchors(t, resolved)[fragment] {
				t.Errorf("%s: link %s: %s has no heading with the anchor #%s", file, target, resolved, fragment)
			}
		}
	}
}

// proseOf returns md without its fenced blocks.
func proseOf(md string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives the headings of the
// Markdown file name: lower case, punctuation dropped, spaces as hyphens.
func headingAnchors(t *testing.T, name string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	for _, line := range strings.Split(proseOf(read(t, name)), "\n") {
		heading := strings.TrimLeft(line, "#")
		if heading == line || !strings.HasPrefix(heading, " ") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case r == ' ':
				a.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				a.WriteRune(r)
			}
		}
		anchors[a.String()] = true
	}
	return anchors
}

// docFiles lists the Markdown files whose blocks the tests check.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md", "cmd/petstore/README.md", "cmd/petstore-fake/README.md"}, docs...)
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
