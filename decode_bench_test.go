package petstore

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// BenchmarkDecodePets measures decodePets alone, ListPets' decoding, on the
// bodies internal/bench serves for ListPets: 100 pets, with ASCII names
// (8.3 KB) and with non-ASCII ones (9.1 KB, a quarter of them \u-escaped).
// Its MB/s is body bytes decoded; for ns per byte:
//
//	go test -run='^$' -bench='^BenchmarkDecodePets$' -benchmem .
//
// internal/bench/decode.sh reports ns and instructions per byte. Each
// call of a sub-benchmark's function costs the same, whatever b.N: a run
// with -test.benchtime=(N+2)x minus one with 2x is N decodes.
func BenchmarkDecodePets(b *testing.B) {
	for _, fixture := range []string{"listpets", "listpets-nonascii"} {
		data, err := os.ReadFile("testdata/bench/" + fixture + ".json")
		if err != nil {
			b.Fatal(err)
		}
		want, err := refDecodePets(data)
		if err != nil || len(want) != 100 {
			b.Fatalf("%s: %d pets, %v", fixture, len(want), err)
		}
		b.Run("body="+fixture, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var pets []Pet
			for range b.N {
				if pets, err = decodePets(data); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if diff := cmp.Diff(want, pets); diff != "" {
				b.Fatalf("decodePets(%s) (-want +got):\n%s", fixture, diff)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/B")
		})
	}
}

// BenchmarkUnmarshalPets is BenchmarkDecodePets with encoding/json
// (json.Unmarshal into a []Pet), for scale.
func BenchmarkUnmarshalPets(b *testing.B) {
	data, err := os.ReadFile("testdata/bench/listpets.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("body=listpets", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			var pets []Pet
			if err := json.Unmarshal(data, &pets); err != nil || len(pets) != 100 {
				b.Fatal(len(pets), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns/B")
	})
}
