package pgcatalog

// fillUserCatalog adds the pg_catalog rows of the Schema's objects.
func fillUserCatalog(w *writer, m *model) {
	for _, r := range m.rels {
		fillClass(w, m, r)
		fillColumns(w, r)
		switch r.kind {
		case "r", "v":
			fillRowType(w, m, r)
		case "i":
			fillIndex(w, r)
		case "S":
			fillSequence(w, m, r)
		}
	}
	for _, c := range m.cons {
		fillConstraint(w, c)
	}
	for _, d := range m.defs {
		w.insert("pg_catalog.pg_attrdef", row{"oid": d.oid, "adrelid": d.table.oid, "adnum": d.attnum, "adbin": d.expr})
		depend(w, classAttrdef, d.oid, 0, classPgClass, d.table.oid, d.attnum, "a")
	}
	fillDescriptions(w, m)
	fillCatalogViews(w, m)
}

// fillClass adds r's pg_class row.
func fillClass(w *writer, m *model, r *relObj) {
	checks := 0
	for _, c := range r.cons {
		if c.typ == "c" {
			checks++
		}
	}
	natts := len(r.cols)
	if r.kind == "S" {
		natts = 3
	}
	pages, tuples := kindSize(r.kind)
	w.insert("pg_catalog.pg_class", row{"oid": r.oid, "relname": r.name, "relnamespace": nsPublic,
		"reltype": r.rowType, "relowner": roleOid(m.s), "relam": kindAm(r.kind), "relfilenode": r.oid,
		"relpages": pages, "reltuples": tuples, "relhasindex": len(r.indexes) > 0, "relpersistence": "p",
		"relkind": r.kind, "relnatts": natts, "relchecks": checks, "relhasrules": r.kind == "v",
		"relispopulated": true, "relreplident": replident(r.kind)})
	depend(w, classPgClass, r.oid, 0, classPgNs, nsPublic, 0, "n")
}

// kindSize is relpages and reltuples as a new relation of the kind has
// them in PostgreSQL (tables and views never analyzed: -1).
func kindSize(kind string) (int, float64) {
	switch kind {
	case "i":
		return 1, 0
	case "S":
		return 1, 1
	}
	return 0, -1
}

// kindAm is a user relation kind's access method.
func kindAm(kind string) int64 {
	switch kind {
	case "r":
		return amHeap
	case "i":
		return amBtree
	}
	return 0
}

func replident(kind string) string {
	if kind == "r" {
		return "d"
	}
	return "n"
}

// depend adds one pg_depend row.
func depend(w *writer, class, obj int64, sub int, refClass, ref int64, refSub int, typ string) {
	w.insert("pg_catalog.pg_depend", row{"classid": class, "objid": obj, "objsubid": sub,
		"refclassid": refClass, "refobjid": ref, "refobjsubid": refSub, "deptype": typ})
}

// fillColumns adds r's pg_attribute rows: its columns from attnum 1, and
// for a table or sequence PostgreSQL's system columns (negative attnums:
// ctid -1, xmin -2, cmin -3, xmax -4, cmax -5, tableoid -6).
func fillColumns(w *writer, r *relObj) {
	cols := r.cols
	if r.kind == "S" {
		cols = []Column{{Name: "last_value", Type: "int8", Typmod: -1, NotNull: true},
			{Name: "log_cnt", Type: "int8", Typmod: -1, NotNull: true},
			{Name: "is_called", Type: "bool", Typmod: -1, NotNull: true}}
	}
	for i, c := range cols {
		fillAttribute(w, r.oid, i+1, c)
	}
	if r.kind != "r" && r.kind != "S" {
		return
	}
	for i, name := range []string{"ctid", "xmin", "cmin", "xmax", "cmax", "tableoid"} {
		typ := []string{"tid", "xid", "cid", "xid", "cid", "oid"}[i]
		fillAttribute(w, r.oid, -(i + 1), Column{Name: name, Type: typ, Typmod: -1, NotNull: true})
	}
}

// fillAttribute adds one pg_attribute row.
func fillAttribute(w *writer, rel int64, num int, c Column) {
	t := typesByName[c.Type]
	if t == nil {
		t = typesByName["unknown"]
	}
	ndims, stattarget := 0, -1
	if t.category == "A" {
		ndims = 1
	}
	if num < 0 {
		stattarget = 0
	}
	w.insert("pg_catalog.pg_attribute", row{"attrelid": rel, "attname": c.Name, "atttypid": t.oid,
		"attstattarget": stattarget, "attlen": t.len, "attnum": num, "attndims": ndims, "attcacheoff": -1,
		"atttypmod": c.Typmod, "attbyval": t.byval, "attalign": t.align, "attstorage": t.storage,
		"attnotnull": c.NotNull, "atthasdef": c.Default != "", "attidentity": identity(c.Identity),
		"attislocal": true, "attcollation": t.collation})
}

// identity is attidentity's text ("" for none).
func identity(b byte) string {
	if b == 0 {
		return ""
	}
	return string(b)
}

// fillRowType adds a table's or view's row type and its array type.
func fillRowType(w *writer, m *model, r *relObj) {
	w.insert("pg_catalog.pg_type", row{"oid": r.rowType, "typname": r.name, "typnamespace": nsPublic,
		"typowner": roleOid(m.s), "typlen": -1, "typbyval": false, "typtype": "c", "typcategory": "C",
		"typisdefined": true, "typdelim": ",", "typrelid": r.oid, "typarray": r.arrayType,
		"typinput": procOid("record_in"), "typoutput": procOid("record_out"),
		"typreceive": procOid("record_recv"), "typsend": procOid("record_send"), "typalign": "d",
		"typstorage": "x", "typtypmod": -1})
	w.insert("pg_catalog.pg_type", row{"oid": r.arrayType, "typname": "_" + r.name, "typnamespace": nsPublic,
		"typowner": roleOid(m.s), "typlen": -1, "typbyval": false, "typtype": "b", "typcategory": "A",
		"typisdefined": true, "typdelim": ",", "typsubscript": procOid("array_subscript_handler"),
		"typelem": r.rowType, "typinput": procOid("array_in"), "typoutput": procOid("array_out"),
		"typreceive": procOid("array_recv"), "typsend": procOid("array_send"), "typalign": "d",
		"typstorage": "x", "typtypmod": -1})
	depend(w, classPgType, r.rowType, 0, classPgClass, r.oid, 0, "i")
}

// fillIndex adds an index's pg_index row and its dependency.
func fillIndex(w *writer, r *relObj) {
	ix := r.index
	var colls, classes, opts []int64
	for _, c := range r.cols {
		t := typesByName[c.Type]
		var coll, class int64
		if t != nil {
			coll, class = t.collation, opclassByTyp[t.oid]
		}
		colls, classes, opts = append(colls, coll), append(classes, class), append(opts, 0)
	}
	w.insert("pg_catalog.pg_index", row{"indexrelid": r.oid, "indrelid": ix.table.oid, "indnatts": len(ix.cols),
		"indnkeyatts": len(ix.cols), "indisunique": ix.unique, "indisprimary": ix.primary, "indimmediate": true,
		"indisvalid": true, "indisready": true, "indislive": true, "indkey": ix.table.attnums(ix.cols),
		"indcollation": vector(colls), "indclass": vector(classes), "indoption": vector(opts)})
	if ix.cons != nil {
		depend(w, classPgClass, r.oid, 0, classPgCons, ix.cons.oid, 0, "i")
		return
	}
	for _, n := range ix.table.attnums(ix.cols) {
		depend(w, classPgClass, r.oid, 0, classPgClass, ix.table.oid, int(n), "a")
	}
}

// fillSequence adds a sequence's pg_sequence row and, when a column owns
// it, its dependency on that column ('i' for an identity column, 'a'
// for a serial one).
func fillSequence(w *writer, m *model, r *relObj) {
	q := r.seq
	w.insert("pg_catalog.pg_sequence", row{"seqrelid": r.oid, "seqtypid": typeOid(q.Type), "seqstart": q.Start,
		"seqincrement": q.Increment, "seqmax": q.Max, "seqmin": q.Min, "seqcache": 1, "seqcycle": q.Cycle})
	t := m.relByName[q.OwnedByTable]
	if t == nil {
		return
	}
	n, c, ok := t.attnum(q.OwnedByColumn)
	if !ok {
		return
	}
	typ := "a"
	if c.Identity != 0 {
		typ = "i"
	}
	depend(w, classPgClass, r.oid, 0, classPgClass, t.oid, n, typ)
}

// typeOid is a built-in type's oid by name (0 when unknown).
func typeOid(name string) int64 {
	if t := typesByName[name]; t != nil {
		return t.oid
	}
	return 0
}

// fillConstraint adds a constraint's pg_constraint row and dependencies.
func fillConstraint(w *writer, c *consObj) {
	r := row{"oid": c.oid, "conname": c.name, "connamespace": nsPublic, "contype": c.typ,
		"convalidated": true, "conrelid": c.table.oid, "confupdtype": " ", "confdeltype": " ",
		"confmatchtype": " ", "conislocal": true, "conkey": c.table.attnums(c.cols), "conbin": nil}
	if c.index != nil {
		r["conindid"] = c.index.oid
	}
	if c.typ == "f" {
		r["confrelid"], r["confkey"] = c.ref.oid, c.ref.attnums(c.fk.RefColumns)
		r["confupdtype"], r["confdeltype"] = fkAction(c.fk.OnUpdate), fkAction(c.fk.OnDelete)
		r["confmatchtype"] = "s"
	}
	if c.typ == "c" {
		r["conbin"] = c.check
	}
	w.insert("pg_catalog.pg_constraint", r)
	for _, n := range c.table.attnums(c.cols) {
		depend(w, classPgCons, c.oid, 0, classPgClass, c.table.oid, int(n), "a")
	}
}

// fkAction is a foreign key action's "char" (no action when unset).
func fkAction(b byte) string {
	if b == 0 {
		return "a"
	}
	return string(b)
}

// fillDescriptions adds the comments on tables and columns.
func fillDescriptions(w *writer, m *model) {
	for _, r := range m.rels {
		if r.comment != "" {
			w.insert("pg_catalog.pg_description", row{"objoid": r.oid, "classoid": classPgClass,
				"objsubid": 0, "description": r.comment})
		}
		if r.kind != "r" && r.kind != "v" {
			continue
		}
		for i, c := range r.cols {
			if c.Comment != "" {
				w.insert("pg_catalog.pg_description", row{"objoid": r.oid, "classoid": classPgClass,
					"objsubid": i + 1, "description": c.Comment})
			}
		}
	}
}
