package petstore

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestVersionIsNewestInChangelog checks that CHANGELOG.md lists its
// releases newest first and that Version is the newest of them, so that a
// release bumps both together.
func TestVersionIsNewestInChangelog(t *testing.T) {
	t.Parallel()
	if err := checkChangelog(read(t, "CHANGELOG.md"), Version); err != nil {
		t.Error(err)
	}
}

func TestCheckChangelog(t *testing.T) {
	t.Parallel()
	const head = "# Changelog\n\n## [Unreleased]\n\n"
	for _, tc := range []struct {
		name, text, version string
		wantErr             string // a part of the error; "" for none
	}{
		{"newest first", head + "## [0.10.0] - 2026-12-01\n## [0.9.1] - 2026-11-30\n## [0.9.0] - 2026-11-30\n", "0.10.0", ""},
		{"no Unreleased", "## [1.0.0] - 2027-01-01\n### Added\n## [0.1.0] - 2026-01-01\n", "1.0.0", ""},
		{"Version not the newest", head + "## [0.2.0] - 2026-11-25\n## [0.1.0] - 2026-11-24\n", "0.1.0", `petstore.Version is "0.1.0", but the newest release in CHANGELOG.md is 0.2.0`},
		{"oldest first", head + "## [0.1.0] - 2026-11-24\n## [0.2.0] - 2026-11-25\n", "0.2.0", "0.2.0 is listed below 0.1.0"},
		{"numbers, not text", head + "## [0.9.0] - 2026-11-25\n## [0.10.0] - 2026-11-26\n", "0.9.0", "0.10.0 is listed below 0.9.0"},
		{"twice", head + "## [0.2.0] - 2026-11-25\n## [0.2.0] - 2026-11-25\n", "0.2.0", "0.2.0 is listed below 0.2.0"},
		{"dates out of order", head + "## [0.2.0] - 2026-11-24\n## [0.1.0] - 2026-11-25\n", "0.2.0", "0.1.0 (2026-11-25) is dated after 0.2.0 (2026-11-24)"},
		{"no date", head + "## [0.2.0]\n## [0.1.0] - 2026-11-24\n", "0.2.0", `heading "## [0.2.0]" is not`},
		{"impossible date", head + "## [0.2.0] - 2026-11-31\n", "0.2.0", "day out of range"},
		{"a v prefix", head + "## [v0.2.0] - 2026-11-25\n", "0.2.0", `heading "## [v0.2.0] - 2026-11-25" is not`},
		{"Unreleased below a release", "## [0.1.0] - 2026-11-24\n## [Unreleased]\n", "0.1.0", "[Unreleased] is below a release"},
		{"no release", head, "0.1.0", "no release"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := checkChangelog(tc.text, tc.version)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("checkChangelog: %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("checkChangelog: %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// changelogHeading is a level-2 heading of CHANGELOG.md; release is one
// that names a release as Keep a Changelog writes it.
var (
	changelogHeading = regexp.MustCompile(`(?m)^## .*$`)
	release          = regexp.MustCompile(`^## \[(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\] - ([0-9]{4}-[0-9]{2}-[0-9]{2})$`)
)

// checkChangelog checks that text, a changelog in the Keep a Changelog
// format, has an optional "## [Unreleased]" first, then releases
// ("## [x.y.z] - YYYY-MM-DD") from the newest version and date to the
// oldest, and that version is the newest.
func checkChangelog(text, version string) error {
	var newest, prev string
	var prevNum [3]int
	var prevDate time.Time
	for _, h := range changelogHeading.FindAllString(text, -1) {
		if h == "## [Unreleased]" {
			if prev != "" {
				return fmt.Errorf("CHANGELOG.md: [Unreleased] is below a release (%s)", prev)
			}
			continue
		}
		m := release.FindStringSubmatch(h)
		if m == nil {
			return fmt.Errorf(`CHANGELOG.md: heading %q is not "## [Unreleased]" nor a release, "## [x.y.z] - YYYY-MM-DD"`, h)
		}
		var num [3]int
		for i := range num {
			n, err := strconv.Atoi(m[i+1])
			if err != nil {
				return fmt.Errorf("CHANGELOG.md: %s: %v", h, err)
			}
			num[i] = n
		}
		v := m[1] + "." + m[2] + "." + m[3]
		date, err := time.Parse(time.DateOnly, m[4])
		if err != nil {
			return fmt.Errorf("CHANGELOG.md: %s: %v", h, err)
		}
		if prev == "" {
			newest = v
		} else {
			if !older(num, prevNum) {
				return fmt.Errorf("CHANGELOG.md: %s is listed below %s: releases go newest first", v, prev)
			}
			if date.After(prevDate) {
				return fmt.Errorf("CHANGELOG.md: %s (%s) is dated after %s (%s) above it", v, m[4], prev, prevDate.Format(time.DateOnly))
			}
		}
		prev, prevNum, prevDate = v, num, date
	}
	if newest == "" {
		return fmt.Errorf("CHANGELOG.md: no release")
	}
	if version != newest {
		return fmt.Errorf("petstore.Version is %q, but the newest release in CHANGELOG.md is %s", version, newest)
	}
	return nil
}

// older reports whether version a (major, minor, patch) comes before b.
func older(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
