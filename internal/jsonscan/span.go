package jsonscan

// Span is where a string stands in the input of the Decoder that read it,
// and whether it is plain: what a caller keeps of a string it reads later,
// with [Decoder.At], in less room than a [Str] (a caller that keeps one for
// each of a hundred objects keeps them on its stack).
type Span struct {
	start, end int
	plain      bool
}

// SpanOrNull reads a string as [Decoder.StrOrNull] does, and returns where
// it stands instead.
func (d *Decoder) SpanOrNull() (sp Span, ok bool, err error) {
	if d.ws() != '"' {
		_, _, err = d.StrOrNull() // a null, or the error
		return Span{}, false, err
	}
	s, err := d.str()
	if err != nil {
		return Span{}, false, err
	}
	end := d.pos - 1 // at the closing quote
	return Span{start: end - len(s.raw), end: end, plain: s.plain}, true, nil
}

// At returns the string at sp, a Span that d returned.
func (d *Decoder) At(sp Span) Str {
	return Str{raw: d.data[sp.start:sp.end], plain: sp.plain}
}
