package expr

// Checks that need the table's key attribute names, which the engine calls
// after parsing (and after the unused-placeholder check).

// walkOperandPaths calls f for every document path an operand tree reads,
// stopping when f returns false.
func walkOperandPaths(o *operand, f func(Path) bool) bool {
	if o == nil {
		return true
	}
	if o.kind == opPath {
		return f(o.path)
	}
	for _, a := range o.args {
		if !walkOperandPaths(a, f) {
			return false
		}
	}
	return true
}

func walkCondPaths(c *cond, f func(Path) bool) bool {
	if c == nil {
		return true
	}
	if !walkCondPaths(c.l, f) || !walkCondPaths(c.r, f) {
		return false
	}
	for _, a := range c.args {
		if !walkOperandPaths(a, f) {
			return false
		}
	}
	return true
}

func keyScalarErr(key string) error {
	return errorf("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: ", key)
}

// nestedKey returns the key attribute a path looks inside, if any.
func nestedKey(p Path, keys []string) (string, bool) {
	if len(p) < 2 {
		return "", false
	}
	for _, k := range keys {
		if p[0].Name == k {
			return k, true
		}
	}
	return "", false
}

// CheckKeyPaths refuses a path that looks inside a key attribute
// (pk.x, pk[0]): key attributes are scalars.
func (c *Condition) CheckKeyPaths(keys ...string) error {
	var err error
	walkCondPaths(c.root, func(p Path) bool {
		if k, ok := nestedKey(p, keys); ok {
			err = keyScalarErr(k)
			return false
		}
		return true
	})
	return err
}

// CheckKeyPaths is Condition.CheckKeyPaths for a projection.
func (p *Projection) CheckKeyPaths(keys ...string) error {
	for _, path := range p.paths {
		if k, ok := nestedKey(path, keys); ok {
			return keyScalarErr(k)
		}
	}
	return nil
}

// CheckKeyPaths is Condition.CheckKeyPaths for the operands of an update
// (its targets are checked by CheckKeys).
func (u *Update) CheckKeyPaths(keys ...string) error {
	for _, a := range u.actions {
		var err error
		walkOperandPaths(a.val, func(p Path) bool {
			if k, ok := nestedKey(p, keys); ok {
				err = keyScalarErr(k)
				return false
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CheckNoKeyAttributes is Query's rule that a FilterExpression may not use
// the table's (or index's) key attributes.
func (c *Condition) CheckNoKeyAttributes(keys ...string) error {
	var err error
	walkCondPaths(c.root, func(p Path) bool {
		for _, k := range keys {
			if p[0].Name == k {
				err = errorf("Filter Expression can only contain non-primary key attributes: Primary key attribute: ", k)
				return false
			}
		}
		return true
	})
	return err
}

// TopLevel returns the distinct top-level attribute names the condition
// reads, in first-use order (Query/Scan check them against an index's
// projection).
func (c *Condition) TopLevel() []string {
	var names []string
	seen := map[string]bool{}
	walkCondPaths(c.root, func(p Path) bool {
		if n := p[0].Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
		return true
	})
	return names
}
