package mysqlgate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// parseTreeTypes are the parser's types behind the names of knownTypes.
var parseTreeTypes = []any{
	sqlparser.Select{}, sqlparser.SetOp{}, sqlparser.ParenSelect{}, sqlparser.Insert{}, sqlparser.Update{},
	sqlparser.Delete{}, sqlparser.DDL{}, sqlparser.AlterTable{}, sqlparser.QueryOpts{}, sqlparser.With{},
	sqlparser.CommonTableExpr{}, sqlparser.AliasedTableExpr{}, sqlparser.AliasedExpr{}, sqlparser.StarExpr{},
	sqlparser.TableName{}, sqlparser.Subquery{}, sqlparser.JoinTableExpr{}, sqlparser.JoinCondition{},
	sqlparser.ParenTableExpr{}, sqlparser.Where{}, sqlparser.Order{}, sqlparser.Limit{}, sqlparser.AliasedValues{},
	sqlparser.AssignmentExpr{}, sqlparser.ColIdent{}, sqlparser.TableIdent{}, sqlparser.AndExpr{},
	sqlparser.OrExpr{}, sqlparser.XorExpr{}, sqlparser.NotExpr{}, sqlparser.ParenExpr{}, sqlparser.ComparisonExpr{},
	sqlparser.RangeCond{}, sqlparser.IsExpr{}, sqlparser.ExistsExpr{}, sqlparser.SQLVal{}, sqlparser.NullVal{},
	sqlparser.BoolVal(false), sqlparser.ColName{}, sqlparser.ValTuple{}, sqlparser.Values{}, sqlparser.BinaryExpr{},
	sqlparser.UnaryExpr{}, sqlparser.IntervalExpr{}, sqlparser.CollateExpr{}, sqlparser.FuncExpr{},
	sqlparser.TimestampFuncExpr{}, sqlparser.ExtractFuncExpr{}, sqlparser.CaseExpr{}, sqlparser.When{},
	sqlparser.ValuesFuncExpr{}, sqlparser.ConvertExpr{}, sqlparser.ConvertType{}, sqlparser.SubstrExpr{},
	sqlparser.TrimExpr{}, sqlparser.GroupConcatExpr{}, sqlparser.Separator{}, sqlparser.Default{},
	sqlparser.TableSpec{}, sqlparser.ColumnDefinition{}, sqlparser.ColumnType{}, sqlparser.IndexDefinition{},
	sqlparser.IndexInfo{}, sqlparser.IndexColumn{}, sqlparser.IndexOption{}, sqlparser.IndexSpec{},
	sqlparser.TableOption{}, sqlparser.ConstraintDefinition{}, sqlparser.ForeignKeyDefinition{},
	sqlparser.CheckConstraintDefinition{}, sqlparser.ColumnOrder{}, sqlparser.DefaultSpec{}, sqlparser.NotNullSpec{},
	sqlparser.ColumnTypeSpec{}, sqlparser.OptLike{}, sqlparser.ViewSpec{},
}

// TestKnownTypesMatchTheParser: every type knownTypes names is a parse-tree
// type, and every field it lists (walked, ignored or explained) exists, so
// a misspelt name cannot silently change what the gate walks.
func TestKnownTypesMatchTheParser(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, v := range parseTreeTypes {
		rt := reflect.TypeOf(v)
		types[rt.Name()] = rt
	}
	for name, fields := range knownTypes {
		rt, ok := types[name]
		if !ok {
			t.Errorf("knownTypes names %s, which parseTreeTypes does not list", name)
			continue
		}
		for _, f := range fields {
			if _, ok := rt.FieldByName(f); !ok {
				t.Errorf("knownTypes lists %s.%s, which does not exist", name, f)
			}
		}
	}
	for _, m := range []map[string]bool{ignoredFields, setOf(keys(fieldReasons)...)} {
		for key := range m {
			name, field, _ := strings.Cut(key, ".")
			rt, ok := types[name]
			if !ok {
				continue // a type the gate does not know: explained only
			}
			if _, ok := rt.FieldByName(field); !ok {
				t.Errorf("%s does not exist", key)
			}
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
