package jsonscan

import "encoding/binary"

// Iter walks the members of an object or the elements of an array, for
// [Decoder.Object] and [Decoder.Array]. After each Next that returns true,
// the value of the member or element is the next thing in the Decoder, and
// the caller must read or skip it before calling Next again.
type Iter struct {
	d         *Decoder
	fields    *Fields // of an object, or nil
	open      byte    // '{' or '['
	close     byte    // '}' or ']'
	state     uint8   // iterStart, iterMore, iterDone or iterFailed
	plain     bool    // the current member's name is plain
	nameStart int     // where the current member's name starts in the input
	nameEnd   int     // and ends (no slice here: no write barrier per member)
	field     int     // the index in fields of the current member, or -1
}

const (
	iterStart  = iota // before the opening bracket
	iterMore          // after the opening bracket or a value
	iterDone          // after the closing bracket
	iterFailed        // after an error, kept in the Decoder
)

// Object returns an Iter over the members of the object that comes next,
// which matches each member's name to fields (that may be nil), as
// encoding/json matches names to a struct's fields:
//
//	obj := d.Object(petFields)
//	for obj.Next() {
//		switch obj.Field() {
//		case petID: // read the value
//		default: // d.Skip()
//		}
//	}
//	if err := obj.Err(); err != nil { ... }
func (d *Decoder) Object(fields *Fields) Iter {
	return Iter{d: d, fields: fields, open: '{', close: '}', field: -1}
}

// Array returns an Iter over the elements of the array that comes next.
func (d *Decoder) Array() Iter { return Iter{d: d, open: '[', close: ']', field: -1} }

// Next reads up to the next member's value (its name and the colon) or the
// next element. It returns false at the end of the object or array, its
// closing bracket read, or on an error, which Err then returns.
//
// It first looks for what most JSON holds next in an object: no
// whitespace, then the brace or comma and the name of the field after the
// last one matched (most objects list their members in one order) with
// its colon, compared sixteen bytes at once: no scan of the name.
func (it *Iter) Next() bool {
	d := it.d
	if f := it.fields; f != nil && d.pos+17 <= len(d.data) {
		pos := d.pos
		b := d.data[pos : pos+17 : pos+17] // one bounds check for what follows
		k := it.field + 1
		if k >= len(f.quoted) {
			k = 0
		}
		q := &f.quoted[k]
		if b[0] == '}' && it.state == iterMore {
			return it.end()
		}
		if binary.LittleEndian.Uint64(b[1:9])&q.mask0 == q.word0 && binary.LittleEndian.Uint64(b[9:17])&q.mask1 == q.word1 {
			switch {
			case b[0] == ',' && it.state == iterMore:
			case b[0] == '{' && it.state == iterStart && d.depth < MaxDepth:
				d.depth++
				it.state = iterMore
			default:
				return it.next()
			}
			it.nameStart, it.nameEnd, it.plain, it.field = pos+2, pos+q.len-1, true, k
			d.pos = pos + 1 + q.len
			return true
		}
	} else if pos := d.pos; it.close == ']' && it.state == iterMore && pos < len(d.data) && d.data[pos] == ',' {
		d.pos = pos + 1 // the next element, as most JSON has it
		return true
	}
	return it.next()
}

// next is Next where it finds something else.
func (it *Iter) next() bool {
	d := it.d
	c := d.ws()
	switch it.state {
	case iterStart:
		if c != it.open {
			return it.fail(d.syntaxError())
		}
		if d.depth >= MaxDepth {
			return it.fail(d.errorf("exceeded max depth"))
		}
		d.depth++
		d.pos++
		if d.ws() == it.close {
			return it.end()
		}
	case iterMore:
		switch c {
		case ',':
			d.pos++
		case it.close:
			return it.end()
		default:
			return it.fail(d.syntaxError())
		}
	default: // iterDone, iterFailed
		return false
	}
	it.state = iterMore
	if it.close == '}' {
		return it.member()
	}
	return true
}

// member reads a member name and the colon after it, and matches the name
// to it.fields. It first looks for the fields' names as most JSON writes
// them, plain, starting with the one after the last field matched (most
// objects list their members in one order): that needs no scan of the
// name, and compares eight bytes at a time.
func (it *Iter) member() bool {
	d := it.d
	data, pos := d.data, d.pos
	if f := it.fields; f != nil && pos+16 <= len(data) {
		// The words hold the quote too: a match means a name starts here.
		w0 := binary.LittleEndian.Uint64(data[pos : pos+8])
		w1 := binary.LittleEndian.Uint64(data[pos+8 : pos+16])
		k := it.field + 1
		for range f.quoted {
			if k >= len(f.quoted) {
				k = 0
			}
			if q := &f.quoted[k]; w0&q.mask0 == q.word0 && w1&q.mask1 == q.word1 {
				it.nameStart, it.nameEnd, it.plain, it.field = pos+1, pos+q.len-2, true, k
				d.pos = pos + q.len
				return true
			}
			k++
		}
	}
	if d.ws() != '"' {
		return it.fail(d.syntaxError())
	}
	start := d.pos + 1
	name, err := d.str()
	if err != nil {
		return it.fail(err)
	}
	it.nameStart, it.nameEnd, it.plain, it.field = start, d.pos-1, name.plain, it.fields.match(name)
	return it.colon()
}

// colon reads the colon after a member name.
func (it *Iter) colon() bool {
	d := it.d
	if d.ws() != ':' {
		return it.fail(d.syntaxError())
	}
	d.pos++
	return true
}

// end reads the closing bracket.
func (it *Iter) end() bool {
	it.d.pos++
	it.d.depth--
	it.state = iterDone
	return false
}

// fail ends the walk on err. The error is kept in the Decoder, not in it:
// escape analysis does not tell an Iter's fields apart, and an error read
// from the Iter would take the Decoder it points to to the heap.
func (it *Iter) fail(err error) bool {
	it.d.err = err
	it.state = iterFailed
	return false
}

// Name returns the name of the current member of an object.
func (it *Iter) Name() Str {
	return Str{raw: it.d.data[it.nameStart:it.nameEnd], plain: it.plain}
}

// Field returns the index in the Iter's Fields of the field the current
// member's name stands for, or -1 if it is none of them.
func (it *Iter) Field() int { return it.field }

// Fields is the names of the fields a caller reads from an object.
type Fields struct {
	names  []string
	quoted []quoted // each name in quotes, as most JSON writes it
}

// quoted is a name in quotes and its colon, as the first 16 bytes at a
// member's start hold them: equal to word0 and word1 under their masks.
type quoted struct {
	word0, mask0 uint64
	word1, mask1 uint64
	len          int // of the name, its quotes and the colon
}

// NewFields returns the Fields with the given names, which must differ
// even once folded as [Str.EqualFold] folds them; with none, nil (which
// Next takes for no fields, and need not look into).
func NewFields(names ...string) *Fields {
	if len(names) == 0 {
		return nil
	}
	f := &Fields{names: names}
	for _, name := range names {
		f.quoted = append(f.quoted, quote(name))
	}
	return f
}

// match returns the index of the field name stands for, or -1.
func (f *Fields) match(name Str) int {
	if f == nil {
		return -1
	}
	for i, n := range f.names {
		if name.EqualFold(n) {
			return i
		}
	}
	return -1
}

// Err returns the error that ended the walk, if any.
func (it *Iter) Err() error {
	if it.state != iterFailed {
		return nil
	}
	return it.d.err
}

// quote returns name's quoted form, with the colon. For a name that does
// not fit in 16 bytes so, or that JSON would write with escapes, it
// returns a form that never matches (its quote is missing), and such a
// name is matched after a scan.
func quote(name string) quoted {
	var buf, mask [16]byte
	if len(name)+3 > len(buf) {
		return quoted{mask0: 0xFF}
	}
	q := `"` + name + `":`
	for i := range len(q) {
		if i > 0 && i < len(q)-2 && !strPlain[q[i]] {
			return quoted{mask0: 0xFF}
		}
		buf[i], mask[i] = q[i], 0xFF
	}
	le := binary.LittleEndian
	return quoted{
		word0: le.Uint64(buf[:8]), mask0: le.Uint64(mask[:8]),
		word1: le.Uint64(buf[8:]), mask1: le.Uint64(mask[8:]),
		len: len(q),
	}
}
