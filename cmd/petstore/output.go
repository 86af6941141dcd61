package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/petstore/petstore-go"
)

// print writes v, the []petstore.Pet or *petstore.Pet a command got, on
// stdout: a table when stdout is a terminal and -json is not given, else
// one line of JSON, the SDK's value as encoding/json writes it (with <, >
// and & as they are). In both, a string that holds the key (a name, a
// status) has it replaced, and nothing else changes: the JSON stays the
// SDK's values, ids and categories included, whatever the key.
func (e *env) print(v any) int {
	var pets []petstore.Pet
	var out any
	switch v := v.(type) {
	case []petstore.Pet:
		pets = e.redactPets(v)
		out = pets
	case *petstore.Pet:
		pets = e.redactPets([]petstore.Pet{*v})
		out = &pets[0]
	default:
		return e.fail(fmt.Errorf("cannot print a %T", v)) // a command's mistake
	}
	if !e.terminal || e.json {
		b, err := encodeJSON(out)
		if err != nil { // the SDK's types always encode
			return e.fail(err)
		}
		return e.write(b)
	}
	var b bytes.Buffer
	writeTable(&b, pets)
	return e.write(b.Bytes())
}

// encodeJSON returns v as encoding/json writes it, on one line that ends
// with a line break, with <, > and & as they are, and with no control
// character raw: encoding/json escapes those below U+0020 in a string,
// encodeJSON also DEL and the C1 controls (U+0080 to U+009F; U+009B is CSI
// to a terminal), which encoding/json writes as they are. The JSON decodes
// to the same value.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if !bytes.ContainsFunc(b.Bytes(), unicode.IsControl) {
		return b.Bytes(), nil
	}
	out := make([]byte, 0, b.Len()+16)
	for _, r := range b.String() {
		// Outside strings, JSON is ASCII with \n at the end: a control
		// character here is in a string, where \u00XX means it.
		if unicode.IsControl(r) && r != '\n' {
			out = fmt.Appendf(out, `\u%04x`, r)
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

// write writes b on stdout, in one write, and returns the exit status: a
// write error (a full disk, a closed pipe) is a failure.
func (e *env) write(b []byte) int {
	if _, err := e.stdout.Write(b); err != nil {
		return e.fail(err)
	}
	return exitOK
}

// redactPets returns a copy of pets whose strings have every form of the
// key replaced.
func (e *env) redactPets(pets []petstore.Pet) []petstore.Pet {
	out := make([]petstore.Pet, len(pets))
	for i, p := range pets {
		p.Name = e.red.String(p.Name)
		p.Status = petstore.PetStatus(e.red.String(string(p.Status)))
		out[i] = p
	}
	return out
}

// writeTable writes pets on w as a table, one animal a line, under the
// header ID NAME CATEGORY STATUS, as gh prints lists at a terminal; no line
// ends with spaces (an animal without a status).
func writeTable(w io.Writer, pets []petstore.Pet) {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tCATEGORY\tSTATUS")
	for _, p := range pets {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", p.ID, quoteControl(p.Name), p.CategoryID, quoteControl(string(p.Status)))
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if trimmed := strings.TrimRight(line, " \n"); trimmed != "" {
			fmt.Fprintln(w, trimmed)
		}
	}
}

// quoteControl returns s as it may reach a terminal, in a table cell, an
// error line or a line of check: as it is, or quoted as Go quotes strings
// when it holds a control character (a tab or a line break would break the
// table or the line, an escape sequence would be obeyed by the terminal:
// erase a line, retitle the window) or a byte that is not UTF-8 (0x9b alone
// is CSI to an 8-bit terminal). Every text that reaches stdout or stderr
// other than as JSON (see encodeJSON) goes through it.
func quoteControl(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	return s
}

// isTerminal reports whether f is a terminal, as far as its file mode
// tells without a dependency: a character device that is not the null
// device. A pipe or a file is not a character device; /dev/null is one and
// is left out by name, so "petstore list >/dev/null" takes the JSON path a
// script would. Other character devices that are not terminals
// (/dev/full, /dev/zero) count as terminals: output there is lost or
// refused whatever its form. An exact test asks the terminal driver
// (golang.org/x/term), which the module does not depend on.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// quotingWriter writes each write, one line (as slog's handlers write a
// record), on w as quoteControl shows it: slog's text handler quotes a
// value that holds a control character, but not DEL alone.
type quotingWriter struct{ w io.Writer }

func (q quotingWriter) Write(p []byte) (int, error) {
	line, nl := strings.CutSuffix(string(p), "\n")
	if s := quoteControl(line); s != line || !nl {
		if nl {
			s += "\n"
		}
		if _, err := io.WriteString(q.w, s); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return q.w.Write(p)
}
