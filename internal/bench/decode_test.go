package bench

import (
	"testing"

	"github.com/go-faster/jx"
	"github.com/petstore/petstore-go/internal/bench/ogenclient"
)

// BenchmarkDecodePetsJX decodes the ListPets body as ogen's client does,
// with go-faster/jx, for scale beside the root package's
// BenchmarkDecodePets (see decode.sh).
func BenchmarkDecodePetsJX(b *testing.B) {
	b.Run("body=listpets", func(b *testing.B) {
		b.SetBytes(int64(len(ListBody)))
		b.ReportAllocs()
		for range b.N {
			var pets ogenclient.Pets
			if err := pets.Decode(jx.DecodeBytes(ListBody)); err != nil || len(pets) != 100 {
				b.Fatal(len(pets), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ListBody)), "ns/B")
	})
}
