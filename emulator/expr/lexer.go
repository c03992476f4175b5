package expr

import "strings"

// tokKind is the lexical class of a token.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // attribute name or function name or keyword
	tName            // #placeholder
	tValue           // :placeholder
	tNumber          // digits (list indexes)
	tLParen          // (
	tRParen          // )
	tLBrack          // [
	tRBrack          // ]
	tComma           // ,
	tDot             // .
	tPlus            // +
	tMinus           // -
	tEq              // =
	tNe              // <>
	tLt              // <
	tLe              // <=
	tGt              // >
	tGe              // >=
	tIllegal         // any other character
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the source
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// lex splits src into tokens, ending with one tEOF. It never fails: a
// character outside the language becomes a tIllegal token so the parser
// reports it with DynamoDB's "Syntax error; token" message.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+2)
	i := 0
	for i < len(src) {
		c := src[i]
		if isSpace(c) {
			i++
			continue
		}
		start := i
		var k tokKind
		switch {
		case isLetter(c):
			for i++; i < len(src) && (isLetter(src[i]) || isDigit(src[i])); i++ {
			}
			k = tIdent
		case isDigit(c):
			for i++; i < len(src) && isDigit(src[i]); i++ {
			}
			k = tNumber
		case c == '#' || c == ':':
			for i++; i < len(src) && (isLetter(src[i]) || isDigit(src[i])); i++ {
			}
			if i-start == 1 {
				k = tIllegal
			} else if c == '#' {
				k = tName
			} else {
				k = tValue
			}
		default:
			i++
			switch c {
			case '(':
				k = tLParen
			case ')':
				k = tRParen
			case '[':
				k = tLBrack
			case ']':
				k = tRBrack
			case ',':
				k = tComma
			case '.':
				k = tDot
			case '+':
				k = tPlus
			case '-':
				k = tMinus
			case '=':
				k = tEq
			case '<':
				k = tLt
				if i < len(src) && src[i] == '>' {
					k, i = tNe, i+1
				} else if i < len(src) && src[i] == '=' {
					k, i = tLe, i+1
				}
			case '>':
				k = tGt
				if i < len(src) && src[i] == '=' {
					k, i = tGe, i+1
				}
			default:
				k = tIllegal
				// Keep a multi-byte UTF-8 character whole in the message.
				for i < len(src) && src[i]&0xC0 == 0x80 {
					i++
				}
			}
		}
		toks = append(toks, token{kind: k, start: start, end: i})
	}
	toks = append(toks, token{kind: tEOF, start: len(src), end: len(src)})
	return toks
}

// syntaxError builds DynamoDB's message for an unexpected token: the token's
// text and, as "near", the source from the previous token to the next one.
func syntaxError(src string, toks []token, i int) string {
	tok := "<EOF>"
	if toks[i].kind != tEOF {
		tok = src[toks[i].start:toks[i].end]
	}
	from := toks[i].start
	if i > 0 {
		from = toks[i-1].start
	}
	to := toks[i].end
	if toks[i].kind == tEOF {
		to = len(src)
	} else if i+1 < len(toks) && toks[i+1].kind != tEOF {
		to = toks[i+1].end
	}
	return `Syntax error; token: "` + tok + `", near: "` + src[from:to] + `"`
}

// keyword reports whether an identifier token is the keyword kw (DynamoDB's
// keywords are case-insensitive).
func keyword(src string, t token, kw string) bool {
	return t.kind == tIdent && strings.EqualFold(src[t.start:t.end], kw)
}
