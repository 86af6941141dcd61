package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"time"

	checks "github.com/petstore/petstore-go/internal/check"
)

// The JUnit XML report of check -junit, in the form that Jenkins, GitLab,
// GitHub Actions' test reporters and others read: one testsuite, one
// testcase per check; a FAIL is a failure, an INFO is skipped (the
// interface is silent, or the check could not be made: its message says
// which), a PASS says what was seen in system-out; the target is a property
// of the suite. A run that ended before the checks did (the deployment
// cannot be checked, the command's -timeout) adds a testcase "run" with an
// error. Details are quoted as on stdout (see quoteControl): XML 1.0 cannot
// hold most control characters, even escaped.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure"`
	Error     *junitMessage `xml:"error"`
	Skipped   *junitMessage `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the JUnit report of rep's results on w; runErr is
// Run's error, if the checks did not all run.
func (rep *report) writeJUnit(w io.Writer, runErr error) error {
	s := junitSuite{Name: "petstore check", Timestamp: rep.start.UTC().Format(time.RFC3339), Time: seconds(time.Since(rep.start))}
	for i, r := range rep.results {
		detail := quoteControl(oneLine(r.Detail))
		if i == 0 { // the target
			s.Properties = append(s.Properties, junitProperty{Name: "target", Value: detail})
			continue
		}
		c := junitCase{Name: r.Name, Classname: "petstore.check", Time: seconds(rep.times[i])}
		switch r.Verdict {
		case checks.Fail:
			c.Failure = &junitMessage{Message: detail, Type: "FAIL", Text: detail}
			s.Failures++
		case checks.Info:
			c.Skipped = &junitMessage{Message: detail}
			s.Skipped++
		default:
			c.SystemOut = detail
		}
		s.Cases = append(s.Cases, c)
	}
	if runErr != nil {
		msg := rep.e.errLine(runErr.Error())
		s.Cases = append(s.Cases, junitCase{Name: "run", Classname: "petstore.check", Time: seconds(time.Since(rep.last)),
			Error: &junitMessage{Message: msg, Type: "error", Text: msg}})
		s.Errors++
	}
	s.Tests = len(s.Cases)
	all := junitSuites{Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Time: s.Time, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}

// seconds returns d in seconds, as JUnit's time attributes say it.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }
