package bench

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "write the root package's copies of the ListPets bodies")

// TestDecodeFixtures checks that the root package's copies of the ListPets
// bodies, which its BenchmarkDecodePets decodes, are this package's. Run
// with -update to write them.
func TestDecodeFixtures(t *testing.T) {
	t.Parallel()
	for file, body := range map[string][]byte{
		"../../testdata/bench/listpets.json":          ListBody,
		"../../testdata/bench/listpets-nonascii.json": NonASCIIListBody,
	} {
		if *update {
			if err := os.WriteFile(file, body, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, body) {
			t.Errorf("%s differs from the body here: run go test -run=TestDecodeFixtures -update", file)
		}
	}
}
