package expr

// tokKind is the lexical class of a token.
type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // attribute or function name
	tName           // #placeholder
	tValue          // :placeholder
	tNumber         // list index digits
	tLParen         // (
	tRParen         // )
	tLBrack         // [
	tRBrack         // ]
	tComma          // ,
	tDot            // .
	tPlus           // +
	tMinus          // -
	tEq             // =
	tNe             // <>
	tLt             // <
	tLe             // <=
	tGt             // >
	tGe             // >=
	tBad            // a character DynamoDB does not accept
	// Keywords, in every kind of expression and in any letter case.
	tAnd
	tOr
	tNot
	tBetween
	tIn
	tSet
	tRemove
	tAdd
	tDelete
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the source
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// keywordKind returns the keyword token kind of an identifier, or tIdent.
func keywordKind(s string) tokKind {
	if len(s) < 2 || len(s) > 7 {
		return tIdent
	}
	var buf [7]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(s)]) {
	case "AND":
		return tAnd
	case "OR":
		return tOr
	case "NOT":
		return tNot
	case "BETWEEN":
		return tBetween
	case "IN":
		return tIn
	case "SET":
		return tSet
	case "REMOVE":
		return tRemove
	case "ADD":
		return tAdd
	case "DELETE":
		return tDelete
	}
	return tIdent
}

// lex splits src into tokens, ending with one tEOF. It never fails: a
// character outside the language becomes a tBad token so the parser reports
// it with DynamoDB's "Syntax error; token" message.
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
			for i++; i < len(src) && isWord(src[i]); i++ {
			}
			k = keywordKind(src[start:i])
		case c == '#' || c == ':':
			for i++; i < len(src) && isWord(src[i]); i++ {
			}
			switch {
			case i-start == 1:
				k = tBad
			case c == '#':
				k = tName
			default:
				k = tValue
			}
		case isDigit(c):
			// A list index: "0" alone, or digits not starting with 0.
			i++
			if c != '0' {
				for i < len(src) && isDigit(src[i]) {
					i++
				}
			}
			k = tNumber
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
				k = tBad
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
// text and, as "near", the source from the previous token to the end of the
// next one.
func syntaxError(src string, toks []token, i int) string {
	tok := "<EOF>"
	if toks[i].kind != tEOF {
		tok = src[toks[i].start:toks[i].end]
	}
	from := 0
	if i > 0 {
		from = toks[i-1].start
	}
	to := toks[i].end
	if i+1 < len(toks) {
		to = toks[i+1].end
	}
	return `Syntax error; token: "` + tok + `", near: "` + src[from:to] + `"`
}
