package pgcatalog

import (
	"strconv"
	"strings"
)

// Built-in oids (PostgreSQL 15's own).
const (
	nsPgCatalog   = 11
	nsPublic      = 2200
	nsInfoSchema  = 13207
	nsPgToast     = 99
	classPgClass  = 1259
	classPgType   = 1247
	classPgProc   = 1255
	classPgNs     = 2615
	classPgCons   = 2606
	classAttrdef  = 2604
	classRewrite  = 2618
	classPgDB     = 1262
	collDefault   = 100
	collC         = 950
	amBtree       = 403
	amHeap        = 2
	spcDefault    = 1663
	langSQL       = 14
	encodingUTF8  = 6
	bootstrapRole = 10
	// userRole is the oid of Schema.User's role.
	userRole = 16383
	// firstUserOid is PostgreSQL's FirstNormalObjectId: the Schema's
	// objects are numbered from it (model.go).
	firstUserOid = 16384
)

// pgType is one built-in pg_type row (builtinTypes).
type pgType struct {
	oid                          int64
	name                         string
	len                          int64
	byval                        bool
	typtype, category            string
	preferred                    bool
	delim                        string
	elem, array                  int64
	input, output, receive, send int64
	modin, modout, subscript     int64
	align, storage               string
	collation                    int64
	fmtNull, fmtNoMod            string // format_type(oid, NULL) and (oid, -1)
}

// pgProc is one built-in pg_proc row (builtinProcs).
type pgProc struct {
	oid      int64
	name     string
	ret      int64
	args     []int64
	strict   bool
	volatile string
}

// catalogRel is one emulated relation's pg_class row.
type catalogRel struct {
	oid          int64
	schema, name string
	kind         string
}

var (
	typesByOid   = map[int64]*pgType{}
	typesByName  = map[string]*pgType{}
	typeList     []*pgType
	procList     []*pgProc
	procsByOid   = map[int64]*pgProc{}
	procsByName  = map[string]*pgProc{}
	opclassByTyp = map[int64]int64{}
	opclassRows  [][]string
	catalogRels  []catalogRel
)

func init() {
	for _, f := range tableLines(builtinTypes) {
		t := parseType(f)
		typeList = append(typeList, t)
		typesByOid[t.oid], typesByName[t.name] = t, t
	}
	for _, f := range tableLines(builtinProcs) {
		p := parseProc(f)
		procList = append(procList, p)
		procsByOid[p.oid] = p
		if _, ok := procsByName[p.name]; !ok {
			procsByName[p.name] = p
		}
	}
	for _, f := range tableLines(builtinOpclasses) {
		opclassRows = append(opclassRows, f)
		opclassByTyp[atoi(f[2])] = atoi(f[0])
	}
	opclassByTyp[typesByName["varchar"].oid] = opclassByTyp[typesByName["text"].oid]
	for _, f := range tableLines(catalogRelations) {
		catalogRels = append(catalogRels, catalogRel{oid: atoi(f[0]), schema: f[1], name: f[2], kind: f[3]})
	}
}

// tableLines splits a built-in table into its lines' fields (split on
// single spaces, so an empty field stays one).
func tableLines(s string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.Split(l, " "))
	}
	return out
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic("pgcatalog: built-in table: " + s)
	}
	return n
}

func parseType(f []string) *pgType {
	return &pgType{
		oid: atoi(f[0]), name: f[1], len: atoi(f[2]), byval: f[3] == "t", typtype: f[4],
		category: f[5], preferred: f[6] == "t", delim: f[7], elem: atoi(f[8]), array: atoi(f[9]),
		input: atoi(f[10]), output: atoi(f[11]), receive: atoi(f[12]), send: atoi(f[13]),
		modin: atoi(f[14]), modout: atoi(f[15]), subscript: atoi(f[16]), align: f[17],
		storage: f[18], collation: atoi(f[19]),
		fmtNull: strings.ReplaceAll(f[20], "~", " "), fmtNoMod: strings.ReplaceAll(f[21], "~", " "),
	}
}

func parseProc(f []string) *pgProc {
	p := &pgProc{oid: atoi(f[0]), name: f[1], ret: atoi(f[2]), strict: f[4] == "t", volatile: f[5]}
	if f[3] != "" {
		for _, a := range strings.Split(f[3], ",") {
			p.args = append(p.args, atoi(a))
		}
	}
	return p
}
