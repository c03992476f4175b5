package partiql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind is the lexical class of a token.
type kind uint8

const (
	kEOF    kind = iota
	kIdent       // bare identifier or keyword
	kQuoted      // "quoted identifier"
	kString      // 'string literal'
	kNumber      // numeric literal
	kParam       // ?
	kPunct       // operators and punctuation; text holds the symbol
	kBad         // a character the language does not accept
)

// Pos is a place in the statement: 1-based line and column, and a length,
// all counted in characters, as DynamoDB's "at L:C:N" suffixes count them.
type Pos struct {
	Line, Col, Len int
}

func (p Pos) String() string {
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) + ":" + strconv.Itoa(p.Len)
}

// token is one lexeme. text is the decoded content for quoted identifiers
// and strings, the symbol for punctuation, and the source text otherwise.
type token struct {
	kind kind
	text string
	pos  Pos
}

// keyword reports whether t is the bare keyword kw (given in upper case).
func (t token) keyword(kw string) bool {
	return t.kind == kIdent && strings.EqualFold(t.text, kw)
}

// is reports whether t is the punctuation sym.
func (t token) is(sym string) bool { return t.kind == kPunct && t.text == sym }

// lexer splits a statement into tokens, tracking line and column in
// characters. Comments (-- to end of line, /* … */) are whitespace.
type lexer struct {
	src       string
	off       int
	line, col int
}

func isIdentStart(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || r >= '0' && r <= '9' || r == '$'
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func (l *lexer) peekRune(k int) rune {
	off := l.off
	for ; k > 0 && off < len(l.src); k-- {
		_, n := utf8.DecodeRuneInString(l.src[off:])
		off += n
	}
	if off >= len(l.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(l.src[off:])
	return r
}

func (l *lexer) advance() rune {
	r, n := utf8.DecodeRuneInString(l.src[l.off:])
	l.off += n
	if r == '\n' {
		l.line++
		l.col = 1
	} else {
		l.col++
	}
	return r
}

// skipSpace skips whitespace and comments; it fails on an unterminated
// block comment.
func (l *lexer) skipSpace() error {
	for l.off < len(l.src) {
		r := l.peekRune(0)
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f':
			l.advance()
		case r == '-' && l.peekRune(1) == '-':
			for l.off < len(l.src) && l.peekRune(0) != '\n' {
				l.advance()
			}
		case r == '/' && l.peekRune(1) == '*':
			l.advance()
			l.advance()
			for {
				if l.off >= len(l.src) {
					// DynamoDB's lexer error has no detail.
					return malformed("")
				}
				if l.peekRune(0) == '*' && l.peekRune(1) == '/' {
					l.advance()
					l.advance()
					break
				}
				l.advance()
			}
		default:
			return nil
		}
	}
	return nil
}

// lex returns every token of src, ending with kEOF.
func lex(src string) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1}
	var toks []token
	for {
		if err := l.skipSpace(); err != nil {
			return nil, err
		}
		start := Pos{Line: l.line, Col: l.col}
		if l.off >= len(l.src) {
			start.Len = 0
			return append(toks, token{kind: kEOF, pos: start}), nil
		}
		t, err := l.next()
		if err != nil {
			return nil, err
		}
		t.pos.Line, t.pos.Col = start.Line, start.Col
		if t.pos.Len == 0 {
			t.pos.Len = l.col - start.Col
			if l.line != start.Line {
				t.pos.Len = 1
			}
		}
		toks = append(toks, t)
	}
}

// next reads one token at l.off.
func (l *lexer) next() (token, error) {
	startOff := l.off
	r := l.peekRune(0)
	switch {
	case isIdentStart(r):
		for l.off < len(l.src) && isIdentPart(l.peekRune(0)) {
			l.advance()
		}
		return token{kind: kIdent, text: l.src[startOff:l.off]}, nil
	case r == '"' || r == '\'':
		return l.quoted(r)
	case isDigit(r) || r == '.' && isDigit(l.peekRune(1)):
		return l.number()
	case r == '?':
		l.advance()
		return token{kind: kParam, text: "?"}, nil
	case r == '#':
		// Not a comment in DynamoDB's PartiQL: a lexer error, no detail.
		return token{}, malformed("")
	}
	two := ""
	if r2 := l.peekRune(1); r2 >= 0 {
		two = string([]rune{r, r2})
	}
	switch two {
	case "<>", "!=", "<=", ">=", "<<", ">>", "||":
		l.advance()
		l.advance()
		return token{kind: kPunct, text: two}, nil
	}
	switch r {
	case '(', ')', '[', ']', '{', '}', ',', '.', '*', '=', '<', '>', '+', '-', ':', ';', '/', '%':
		l.advance()
		return token{kind: kPunct, text: string(r)}, nil
	}
	l.advance()
	return token{kind: kBad, text: string(r)}, nil
}

// quoted reads a 'string' or "identifier"; a doubled quote stands for one.
func (l *lexer) quoted(q rune) (token, error) {
	l.advance()
	var b strings.Builder
	for {
		if l.off >= len(l.src) {
			return token{}, malformed("Unterminated quoted text")
		}
		r := l.advance()
		if r == q {
			if l.peekRune(0) == q {
				l.advance()
				b.WriteRune(q)
				continue
			}
			break
		}
		b.WriteRune(r)
	}
	k := kString
	if q == '"' {
		k = kQuoted
	}
	return token{kind: k, text: b.String()}, nil
}

// number reads 1, 1.5, .5, 1e3, 7.31E+6. A sign is a separate token.
func (l *lexer) number() (token, error) {
	start := l.off
	for isDigit(l.peekRune(0)) {
		l.advance()
	}
	if l.peekRune(0) == '.' && (isDigit(l.peekRune(1)) || !isIdentStart(l.peekRune(1))) {
		l.advance()
		for isDigit(l.peekRune(0)) {
			l.advance()
		}
	}
	if r := l.peekRune(0); r == 'e' || r == 'E' {
		k := 1
		if s := l.peekRune(1); s == '+' || s == '-' {
			k = 2
		}
		if isDigit(l.peekRune(k)) {
			for ; k > 0; k-- {
				l.advance()
			}
			for isDigit(l.peekRune(0)) {
				l.advance()
			}
		}
	}
	return token{kind: kNumber, text: l.src[start:l.off]}, nil
}
