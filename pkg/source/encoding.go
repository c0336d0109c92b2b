package source

import (
	"bytes"
	"io"
	"unicode/utf8"

	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// kubectl reads a file through a decoder that honours a byte order mark
// (UTF-16 in either byte order, UTF-8 with its mark dropped) and that
// otherwise takes the bytes for UTF-8, each ill-formed sequence becoming
// U+FFFD (k8s.io/cli-runtime/pkg/resource FileVisitor). The loader reads
// the same characters: a stray Latin-1 byte in a description is read, not
// a syntax error, and a UTF-16 file is read as its text. Positions are
// those of the characters, as editors show them.

// newKubectlDecoder is FileVisitor's decoder.
func newKubectlDecoder() transform.Transformer {
	return unicode.BOMOverride(unicode.UTF8.NewDecoder())
}

// KubectlText is the text kubectl reads from a file's bytes, which the
// loader reads too: for code that must cut a stream as the loader does
// (pkg/helm). It is data itself, not copied, when data is UTF-8 without a
// byte order mark, as nearly every manifest is.
func KubectlText(data []byte) []byte { return asKubectlReads(data) }

// asKubectlReads is KubectlText.
func asKubectlReads(data []byte) []byte {
	if !hasBOM(data) && utf8.Valid(data) {
		return data
	}
	out, _, err := transform.Bytes(newKubectlDecoder(), data)
	if err != nil {
		// The decoder fails on nothing; keep the bytes if it ever does.
		return data
	}
	return out
}

// MarkedText is, for a file whose bytes start with a byte order mark,
// the text kubectl reads (UTF-8, the mark dropped), for code that edits
// that text by the parser's positions; other files are data itself (an
// ill-formed byte would become three bytes of U+FFFD and move every
// position after it).
func MarkedText(data []byte) []byte {
	if !hasBOM(data) {
		return data
	}
	return asKubectlReads(data)
}

// InEncodingOf is text, the UTF-8 a file's edit made of MarkedText(orig),
// in orig's encoding again: UTF-16 of orig's byte order, or UTF-8, with
// orig's byte order mark, so that a rewritten file stays what its editor
// and its other tools read.
func InEncodingOf(orig, text []byte) ([]byte, error) {
	var enc transform.Transformer
	switch {
	case bytes.HasPrefix(orig, []byte("\xfe\xff")):
		enc = unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder()
	case bytes.HasPrefix(orig, []byte("\xff\xfe")):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder()
	case bytes.HasPrefix(orig, []byte("\xef\xbb\xbf")):
		return append([]byte("\xef\xbb\xbf"), text...), nil
	default:
		return text, nil
	}
	out, _, err := transform.Bytes(enc, text)
	return out, err
}

// kubectlReader is r read through FileVisitor's decoder.
func kubectlReader(r io.Reader) io.Reader {
	return transform.NewReader(r, newKubectlDecoder())
}

// hasBOM reports whether text starts with a byte order mark: UTF-8's, or
// UTF-16's in either byte order.
func hasBOM(text []byte) bool {
	return bytes.HasPrefix(text, []byte("\xef\xbb\xbf")) || bytes.HasPrefix(text, []byte("\xfe\xff")) || bytes.HasPrefix(text, []byte("\xff\xfe"))
}
