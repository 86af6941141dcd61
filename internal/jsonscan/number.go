package jsonscan

// Int64 reads a number that must be an int64, as encoding/json requires
// for an int64 field: no fraction, no exponent, in range.
func (d *Decoder) Int64() (int64, error) {
	d.ws()
	data := d.data
	i := d.pos
	neg := false
	if i < len(data) && data[i] == '-' {
		neg = true
		i++
	}
	if i >= len(data) || data[i] < '0' || data[i] > '9' {
		d.pos = i
		return 0, d.syntaxError()
	}
	var u uint64
	if data[i] == '0' {
		i++
	} else {
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			u = u*10 + uint64(data[i]-'0') // wraps past 20 digits, refused below
			i++
		}
		if i-start > 19 {
			d.pos = start
			return 0, d.errorf("number out of int64 range")
		}
	}
	if i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E') {
		d.pos = i
		return 0, d.errorf("number is not an integer")
	}
	d.pos = i
	if neg {
		if u > 1<<63 {
			return 0, d.errorf("number out of int64 range")
		}
		return int64(-u), nil
	}
	if u > 1<<63-1 {
		return 0, d.errorf("number out of int64 range")
	}
	return int64(u), nil
}

// Int64OrNull reads an int64 as Int64 does, or a null (ok is false), as
// encoding/json decodes into a *int64.
func (d *Decoder) Int64OrNull() (v int64, ok bool, err error) {
	if d.ws() == 'n' {
		return 0, false, d.literal("null")
	}
	v, err = d.Int64()
	return v, err == nil, err
}

// skipNumber reads any JSON number at d.pos.
func (d *Decoder) skipNumber() error {
	data := d.data
	i := d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !isDigit(data, i):
		d.pos = i
		return d.syntaxError()
	default:
		i = digits(data, i)
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !isDigit(data, i) {
			d.pos = i
			return d.syntaxError()
		}
		i = digits(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !isDigit(data, i) {
			d.pos = i
			return d.syntaxError()
		}
		i = digits(data, i)
	}
	d.pos = i
	return nil
}

// isDigit reports whether data[i] is a decimal digit.
func isDigit(data []byte, i int) bool {
	return i < len(data) && data[i] >= '0' && data[i] <= '9'
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(data []byte, i int) int {
	for isDigit(data, i) {
		i++
	}
	return i
}
