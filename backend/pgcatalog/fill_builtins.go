package pgcatalog

// fillBuiltins adds PostgreSQL's built-in rows: namespaces, roles, the
// database, access methods, collations, languages, tablespaces, the
// plpgsql extension, types, procedures, operator classes, the emulated
// relations' own pg_class rows, and the settings.
func fillBuiltins(w *writer, m *model) {
	role := roleOid(m.s)
	builtinACL := []string{"postgres=UC/postgres", "=U/postgres"}
	for _, ns := range [][]any{{nsPgCatalog, pgCatalog, bootstrapRole, builtinACL},
		{nsPublic, "public", role, []string{m.s.User + "=UC/" + m.s.User, "=U/" + m.s.User}},
		{nsInfoSchema, informationSchema, bootstrapRole, builtinACL}, {nsPgToast, "pg_toast", bootstrapRole, nil}} {
		w.insert("pg_catalog.pg_namespace", row{"oid": ns[0], "nspname": ns[1], "nspowner": ns[2], "nspacl": ns[3]})
	}
	fillRoles(w, m)
	w.insert("pg_catalog.pg_database", row{"oid": 5, "datname": m.s.Database, "datdba": role,
		"encoding": encodingUTF8, "datlocprovider": "c", "datallowconn": true, "datconnlimit": -1,
		"dattablespace": spcDefault, "datcollate": "C.UTF-8", "datctype": "C.UTF-8"})
	fillSmallBuiltins(w)
	for _, t := range typeList {
		fillBuiltinType(w, t)
	}
	for _, p := range procList {
		w.insert("pg_catalog.pg_proc", row{"oid": p.oid, "proname": p.name, "pronamespace": nsPgCatalog,
			"proowner": bootstrapRole, "prolang": 12, "procost": 1.0, "prokind": "f", "proisstrict": p.strict,
			"provolatile": p.volatile, "proparallel": "s", "pronargs": len(p.args), "prorettype": p.ret,
			"proargtypes": vector(p.args), "prosrc": p.name})
	}
	for _, f := range opclassRows {
		w.insert("pg_catalog.pg_opclass", row{"oid": atoi(f[0]), "opcmethod": amBtree, "opcname": f[1],
			"opcnamespace": nsPgCatalog, "opcowner": bootstrapRole, "opcfamily": atoi(f[3]),
			"opcintype": atoi(f[2]), "opcdefault": true})
	}
	for _, r := range catalogRels {
		fillCatalogRel(w, r)
	}
	for _, s := range settings(m.s) {
		w.insert("pg_catalog.pg_settings", row{"name": s.name, "setting": s.value, "category": s.category,
			"short_desc": s.name, "context": "user", "vartype": s.vartype, "source": "default",
			"boot_val": s.value, "reset_val": s.value, "pending_restart": false})
	}
}

// vector is an int2vector/oidvector value (a JSON array, never null).
func vector(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

// fillRoles adds the bootstrap superuser "postgres" (10) and Schema.User
// (userRole, not a superuser); when the User is "postgres" it is 10.
func fillRoles(w *writer, m *model) {
	if m.s.User != bootstrapRoleName {
		fillRole(w, bootstrapRole, bootstrapRoleName, true)
	}
	fillRole(w, roleOid(m.s), m.s.User, false)
}

// bootstrapRoleName is the bootstrap superuser's name (a role's, not a
// database kind's).
const bootstrapRoleName = "postgres"

// roleOid is the oid of s.User's role.
func roleOid(s *Schema) int64 {
	if s.User == bootstrapRoleName {
		return bootstrapRole
	}
	return userRole
}

func fillRole(w *writer, oid int64, name string, super bool) {
	w.insert("pg_catalog.pg_roles", row{"oid": oid, "rolname": name, "rolsuper": super, "rolinherit": true,
		"rolcreaterole": super, "rolcreatedb": super, "rolcanlogin": true, "rolreplication": super,
		"rolconnlimit": -1, "rolpassword": "********", "rolbypassrls": super})
	w.insert("pg_catalog.pg_user", row{"usename": name, "usesysid": oid, "usecreatedb": super,
		"usesuper": super, "userepl": super, "usebypassrls": super, "passwd": "********"})
}

// fillSmallBuiltins adds the access methods, collations, languages,
// tablespaces and the plpgsql extension.
func fillSmallBuiltins(w *writer) {
	for _, a := range [][]any{{2, "heap", "heap_tableam_handler", "t"}, {403, "btree", "bthandler", "i"},
		{405, "hash", "hashhandler", "i"}, {783, "gist", "gisthandler", "i"}, {2742, "gin", "ginhandler", "i"},
		{3580, "brin", "brinhandler", "i"}, {4000, "spgist", "spghandler", "i"}} {
		w.insert("pg_catalog.pg_am", row{"oid": a[0], "amname": a[1], "amhandler": procOid(a[2].(string)), "amtype": a[3]})
	}
	for _, c := range [][]any{{collDefault, "default", "d", nil}, {collC, "C", "c", "C"}, {951, "POSIX", "c", "POSIX"}} {
		w.insert("pg_catalog.pg_collation", row{"oid": c[0], "collname": c[1], "collnamespace": nsPgCatalog,
			"collowner": bootstrapRole, "collprovider": c[2], "collisdeterministic": true, "collencoding": -1,
			"collcollate": c[3], "collctype": c[3]})
	}
	for _, l := range [][]any{{12, "internal", false, false}, {13, "c", false, false}, {langSQL, "sql", false, true},
		{13563, "plpgsql", true, true}} {
		w.insert("pg_catalog.pg_language", row{"oid": l[0], "lanname": l[1], "lanowner": bootstrapRole,
			"lanispl": l[2], "lanpltrusted": l[3]})
	}
	for _, s := range [][]any{{spcDefault, "pg_default"}, {1664, "pg_global"}} {
		w.insert("pg_catalog.pg_tablespace", row{"oid": s[0], "spcname": s[1], "spcowner": bootstrapRole})
	}
	w.insert("pg_catalog.pg_extension", row{"oid": 13559, "extname": "plpgsql", "extowner": bootstrapRole,
		"extnamespace": nsPgCatalog, "extrelocatable": false, "extversion": "1.0"})
	w.insert("pg_catalog.pg_description", row{"objoid": 13559, "classoid": 3079, "objsubid": 0,
		"description": "PL/pgSQL procedural language"})
}

// procOid is a built-in procedure's oid by name (0 when unknown).
func procOid(name string) int64 {
	if p := procsByName[name]; p != nil {
		return p.oid
	}
	return 0
}

func fillBuiltinType(w *writer, t *pgType) {
	w.insert("pg_catalog.pg_type", row{"oid": t.oid, "typname": t.name, "typnamespace": nsPgCatalog,
		"typowner": bootstrapRole, "typlen": t.len, "typbyval": t.byval, "typtype": t.typtype,
		"typcategory": t.category, "typispreferred": t.preferred, "typisdefined": true, "typdelim": t.delim,
		"typsubscript": t.subscript, "typelem": t.elem, "typarray": t.array, "typinput": t.input,
		"typoutput": t.output, "typreceive": t.receive, "typsend": t.send, "typmodin": t.modin,
		"typmodout": t.modout, "typalign": t.align, "typstorage": t.storage, "typtypmod": -1,
		"typcollation": t.collation})
}

// fillCatalogRel adds an emulated relation's pg_class row (PostgreSQL's
// oid; its row type is not emulated: reltype 0) and its columns'
// pg_attribute rows.
func fillCatalogRel(w *writer, r catalogRel) {
	ns := int64(nsPgCatalog)
	if r.schema == informationSchema {
		ns = nsInfoSchema
	}
	def := w.rels[r.schema+"."+r.name]
	w.insert("pg_catalog.pg_class", row{"oid": r.oid, "relname": r.name, "relnamespace": ns,
		"relowner": bootstrapRole, "relam": relAm(r.kind), "relfilenode": r.oid, "relpersistence": "p",
		"relkind": r.kind, "relnatts": len(def.Columns), "relispopulated": true, "relreplident": "n",
		"relacl": []string{"postgres=arwdDxt/postgres", "=r/postgres"}})
	for i, c := range def.Columns {
		fillAttribute(w, r.oid, i+1, Column{Name: c.Name, Type: c.Type, Typmod: -1})
	}
}

// relAm is a relation kind's access method (heap for tables, none else).
func relAm(kind string) int64 {
	if kind == "r" {
		return amHeap
	}
	return 0
}

// setting is one pg_settings row.
type setting struct{ name, value, category, vartype string }

// settings are the settings current_setting and SHOW-like queries read.
func settings(s *Schema) []setting {
	return []setting{
		{"server_version", serverVersion, "Preset Options", "string"},
		{"server_version_num", serverVersionNum, "Preset Options", "integer"},
		{"server_encoding", "UTF8", "Preset Options", "string"},
		{"client_encoding", "UTF8", "Client Connection Defaults / Locale and Formatting", "string"},
		{"standard_conforming_strings", "on", "Version and Platform Compatibility", "bool"},
		{"DateStyle", "ISO, MDY", "Client Connection Defaults / Locale and Formatting", "string"},
		{"IntervalStyle", "postgres", "Client Connection Defaults / Locale and Formatting", "enum"},
		{"TimeZone", "UTC", "Client Connection Defaults / Locale and Formatting", "string"},
		{"integer_datetimes", "on", "Preset Options", "bool"},
		{"search_path", `"$user", public`, "Client Connection Defaults / Statement Behavior", "string"},
		{"max_identifier_length", "63", "Preset Options", "integer"},
		{"default_transaction_read_only", "off", "Client Connection Defaults / Statement Behavior", "bool"},
		{"transaction_read_only", "off", "Client Connection Defaults / Statement Behavior", "bool"},
		{"default_transaction_isolation", "serializable", "Client Connection Defaults / Statement Behavior", "enum"},
		{"transaction_isolation", "serializable", "Client Connection Defaults / Statement Behavior", "string"},
		{"lc_collate", "C.UTF-8", "Preset Options", "string"},
		{"lc_ctype", "C.UTF-8", "Preset Options", "string"},
		{"application_name", "", "Reporting and Logging / What to Log", "string"},
		{"is_superuser", "off", "Preset Options", "bool"},
		{"session_authorization", s.User, "Preset Options", "string"},
		{"block_size", "8192", "Preset Options", "integer"},
		{"max_connections", "100", "Connections and Authentication / Connection Settings", "integer"},
		{"statement_timeout", "0", "Client Connection Defaults / Statement Behavior", "integer"},
		{"lock_timeout", "0", "Client Connection Defaults / Statement Behavior", "integer"},
		{"extra_float_digits", "1", "Client Connection Defaults / Locale and Formatting", "integer"},
	}
}

// The server's version as the emulation reports it.
const (
	serverVersion    = "15.0"
	serverVersionNum = "150000"
)
