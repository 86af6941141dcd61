package jsonscan

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestInt64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{`0`, 0, false}, {` -0 `, 0, false}, {`42`, 42, false}, {`-42`, -42, false},
		{`9223372036854775807`, 1<<63 - 1, false}, {`-9223372036854775808`, -1 << 63, false},
		{`9223372036854775808`, 0, true}, {`-9223372036854775809`, 0, true},
		{`18446744073709551616`, 0, true}, {`99999999999999999999`, 0, true},
		{`1.0`, 0, true}, {`1e2`, 0, true}, {`1E2`, 0, true}, {`01`, 0, true}, {`-`, 0, true},
		{`"1"`, 0, true}, {`true`, 0, true}, {`null`, 0, true}, {``, 0, true},
	} {
		d := NewDecoder([]byte(tc.in))
		got, err := d.Int64()
		if err == nil {
			err = d.End()
		}
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("Int64(%q) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestInt64Digits holds Int64 to strconv on numbers of every length from 1
// to 20 digits, at the end of the input and followed by each kind of byte,
// so that the eight-at-a-time reading meets every count of digits and
// every byte that ends them.
func TestInt64Digits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for digits := 1; digits <= 20; digits++ {
		for range 200 {
			num := []byte{byte('1' + rng.IntN(9))}
			for len(num) < digits {
				num = append(num, byte('0'+rng.IntN(10)))
			}
			for _, sign := range []string{"", "-"} {
				in := sign + string(num)
				want, wantErr := strconv.ParseInt(in, 10, 64)
				for _, after := range []string{"", ",", "]", "}", " ", "/", ":", "x", "\xff", "\x00", ".5", "e1", `"`, "  1"} {
					fails := wantErr != nil || strings.ContainsAny(after, ".e")
					d := NewDecoder([]byte(in + after))
					got, err := d.Int64()
					if (err != nil) != fails || !fails && got != want {
						t.Fatalf("Int64(%q) = %d, %v; want %d, error %v", in+after, got, err, want, fails)
					}
					if err == nil && d.Offset() != len(in) {
						t.Fatalf("Int64(%q) stops at %d; want %d", in+after, d.Offset(), len(in))
					}
				}
			}
		}
	}
}
