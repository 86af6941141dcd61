package jsonscan

import (
	"encoding/binary"
	"math/bits"
	"testing"
)

// TestSpecial checks special and specialText on every byte at every place
// of a word, after plain bytes and before any bytes: the lowest set bit is
// that byte's when strPlain (strText) refuses it, and none is set below it
// otherwise.
func TestSpecial(t *testing.T) {
	t.Parallel()
	fill := []byte{'a', ' ', '~', '0', '"', '\\', 0x00, 0x1F, 0x80, 0xFF, 0x20, 0x7F}
	for at := range 8 {
		for c := range 256 {
			for _, after := range fill {
				var w [8]byte
				for k := range w {
					switch {
					case k < at:
						w[k] = 'x'
					case k == at:
						w[k] = byte(c)
					default:
						w[k] = after
					}
				}
				for _, f := range []struct {
					name    string
					special func(uint64) uint64
					plain   *[256]bool
				}{{"special", special, &strPlain}, {"specialText", specialText, &strText}} {
					m := f.special(binary.LittleEndian.Uint64(w[:]))
					first := 8
					if m != 0 {
						first = bits.TrailingZeros64(m) / 8
					}
					if f.plain[c] && first <= at || !f.plain[c] && first != at {
						t.Fatalf("%s(%q) finds byte %d", f.name, w, first)
					}
				}
			}
		}
	}
}
