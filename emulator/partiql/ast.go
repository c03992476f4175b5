package partiql

// Kind is what a statement does.
type Kind uint8

// Statement kinds. Exists is EXISTS(SELECT …), a condition check that only
// ExecuteTransaction accepts.
const (
	Select Kind = iota + 1
	Insert
	Update
	Delete
	Exists
)

func (k Kind) String() string {
	return [...]string{"", "SELECT", "INSERT", "UPDATE", "DELETE", "EXISTS"}[k]
}

// Statement is one parsed PartiQL statement. Params is the number of ?
// placeholders, numbered 0.. in the order written.
type Statement struct {
	Kind   Kind
	Table  string
	Index  string // "" when FROM names the table only
	Params int

	// SELECT (and EXISTS): Star or Projection; Where may be nil.
	Star       bool
	Projection []Path
	OrderBy    []Order

	// INSERT: the item expression (a map literal or a ?).
	Value Expr

	// UPDATE: SET and REMOVE in the order written.
	Sets    []Assign
	Removes []Path

	Where Expr

	// Deferred is a refusal of a SELECT that parsed: a function in its
	// list ("Unexpected path component at …"). Parse returns it as its
	// error unless the statement reads an index; then the caller reports
	// it once the index resolves, as DynamoDB reports a read of a GSI with
	// a multi-attribute key ahead of it.
	Deferred *Error

	// Returning is "", or "ALL OLD", "ALL NEW", "MODIFIED OLD", "MODIFIED NEW".
	Returning    string
	ReturningPos Pos
}

// Order is one ORDER BY key.
type Order struct {
	Path Path
	Desc bool
}

// Assign is SET path = value.
type Assign struct {
	Path  Path
	Value Expr
}

// PathElem is one step of a document path: a name or a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path such as a.b[0].
type Path struct {
	Elems []PathElem
	Pos   Pos
}

// Last returns the name a SELECT result keys the path by: its last name.
func (p Path) Last() string {
	for i := len(p.Elems) - 1; i >= 0; i-- {
		if !p.Elems[i].IsIndex {
			return p.Elems[i].Name
		}
	}
	return ""
}

// Expr is a node of an expression tree.
type Expr interface{ At() Pos }

// Literal kinds.
const (
	LitString = iota + 1
	LitNumber
	LitBool
	LitNull
	LitMissing
)

type (
	// Lit is a scalar literal; Text is the string, the canonical number, or
	// "true"/"false".
	Lit struct {
		Kind int
		Text string
		Pos  Pos
	}
	// Param is the N-th ? (0-based).
	Param struct {
		N   int
		Pos Pos
	}
	// PathExpr is a document path used as a value.
	PathExpr struct{ Path Path }
	// List is [a, b].
	List struct {
		Elems []Expr
		Pos   Pos
	}
	// Map is {'k': v, …}; keys are string literals.
	Map struct {
		Keys []string
		Vals []Expr
		Pos  Pos
	}
	// Set is <<a, b>>.
	Set struct {
		Elems []Expr
		Pos   Pos
	}
	// Binary is L op R for = <> < <= > >= + - AND OR.
	Binary struct {
		Op   string
		L, R Expr
		Pos  Pos // the operator
	}
	// Not is NOT X.
	Not struct {
		X   Expr
		Pos Pos
	}
	// Between is X BETWEEN Lo AND Hi.
	Between struct {
		X, Lo, Hi Expr
		Pos       Pos
	}
	// In is X IN [list].
	In struct {
		X    Expr
		List []Expr
		Pos  Pos
	}
	// Is is X IS [NOT] Type, Type upper-cased (MISSING, NULL, STRING, …).
	Is struct {
		X    Expr
		Neg  bool
		Type string
		Pos  Pos
	}
	// Call is name(args); Name is lower-cased.
	Call struct {
		Name string
		Args []Expr
		Pos  Pos // the function name
	}
)

func (x *Lit) At() Pos      { return x.Pos }
func (x *Param) At() Pos    { return x.Pos }
func (x *PathExpr) At() Pos { return x.Path.Pos }
func (x *List) At() Pos     { return x.Pos }
func (x *Map) At() Pos      { return x.Pos }
func (x *Set) At() Pos      { return x.Pos }
func (x *Binary) At() Pos   { return x.Pos }
func (x *Not) At() Pos      { return x.Pos }
func (x *Between) At() Pos  { return x.Pos }
func (x *In) At() Pos       { return x.Pos }
func (x *Is) At() Pos       { return x.Pos }
func (x *Call) At() Pos     { return x.Pos }
