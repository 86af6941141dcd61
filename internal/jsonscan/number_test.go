package jsonscan

import (
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
