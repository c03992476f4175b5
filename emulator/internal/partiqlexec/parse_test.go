package partiqlexec

import "testing"

// BenchmarkPartiQLParse measures a statement's parse on its own and through
// the executor's statement cache.
func BenchmarkPartiQLParse(b *testing.B) {
	var x Executor
	e := x.on(nil)
	const stmt = `SELECT a, b.c, d[2] FROM "tbl" WHERE pk = ? AND sk BETWEEN 1 AND 9 AND (attribute_exists(x) OR begins_with(s, 'pre')) ORDER BY sk DESC`
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			x.pq = partiqlState{}
			if _, err := e.parseStatement(stmt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.parseStatement(stmt); err != nil {
				b.Fatal(err)
			}
		}
	})
}
