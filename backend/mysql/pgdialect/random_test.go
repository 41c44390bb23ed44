package pgdialect_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/backend/mysql/pgdialect/pgdialecttest"
)

// randomTable holds edge values of every numeric kind and short texts.
var randomTable = []string{
	"CREATE TABLE r (id int4 PRIMARY KEY, a int4, b int8, c int2, n numeric(10,2), f float8, s varchar(6), ok bool)",
	"INSERT INTO r VALUES (1, 2147483647, 9223372036854775807, 32767, 99999999.99, '1e300', 'a', true), " +
		"(2, -2147483648, -9223372036854775808, -32768, -0.01, -2.5, 'B ', false), (3, 0, 0, 0, 0, 0, '', NULL), " +
		"(4, 7, -3, 2, 2.50, 0.1, 'zz', true), (5, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (6, -7, 46341, -181, -1.25, 3, 'é', false)",
}

// TestRandomExpressions compares random expressions over edge values on
// both engines: the same values, or errors of the same class, or a
// refusal.
func TestRandomExpressions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg := pgdialecttest.OpenPG(ctx, t)
	my := pgdialecttest.OpenMaria(ctx, t)
	for _, s := range randomTable {
		if want, got, err := pgdialecttest.Run(ctx, pg, my, s, nil); err != nil || want.Err != "" || !pgdialecttest.Same(want, got) {
			t.Fatalf("%s: %v %v %v", s, err, want, got)
		}
	}
	r := rand.New(rand.NewPCG(randomSeed(t), 2))
	ran, refused, failed := 0, 0, 0
	for range 1500 {
		e := randExpr(r, 3)
		sql := "SELECT id, " + e + " FROM r ORDER BY id"
		if r.IntN(4) == 0 {
			sql = "SELECT id FROM r WHERE " + randExpr(r, 2) + " " + randCmp(r) + " " + randExpr(r, 2) + " ORDER BY id"
		}
		want, got, err := pgdialecttest.Run(ctx, pg, my, sql, nil)
		var perr *pgdialect.Error
		switch {
		case errors.As(err, &perr) && perr.Code == "0A000":
			refused++
			continue
		case err != nil:
			t.Fatalf("%s: %v", sql, err)
		case !pgdialecttest.Same(want, got):
			t.Errorf("%s:\n postgres: %v\n mariadb:  %v", sql, want, got)
		}
		ran++
		if want.Err != "" {
			failed++
		}
	}
	if ran < 200 {
		t.Errorf("only %d of 400 random statements ran (%d refused)", ran, refused)
	}
	t.Logf("%d random statements agree (%d failing alike), %d refused", ran, failed, refused)
}

// randomSeed is the random test's seed: RELCHAIN_TEST_SEED when set (to
// replay a run), else the time; logged either way.
func randomSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if env := os.Getenv("RELCHAIN_TEST_SEED"); env != "" {
		n, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			t.Fatalf("RELCHAIN_TEST_SEED %q: %v", env, err)
		}
		seed = n
	}
	t.Logf("seed %d (RELCHAIN_TEST_SEED)", seed)
	return seed
}

func randCmp(r *rand.Rand) string {
	return []string{"=", "<>", "<", ">=", "IS DISTINCT FROM"}[r.IntN(4)]
}

// randExpr is a random expression of depth at most d over r's columns.
func randExpr(r *rand.Rand, d int) string {
	leaves := []string{"a", "b", "c", "n", "f", "id", "1", "0", "-1", "2147483647", "3000000000", "1.5", "0.05", "NULL", "s", "'x'"}
	if d == 0 || r.IntN(4) == 0 {
		return leaves[r.IntN(len(leaves))]
	}
	x, y := randExpr(r, d-1), randExpr(r, d-1)
	switch r.IntN(12) {
	case 0:
		return "(" + x + " + " + y + ")"
	case 1:
		return "(" + x + " - " + y + ")"
	case 2:
		return "(" + x + " * " + y + ")"
	case 3:
		return "(" + x + " / " + y + ")"
	case 4:
		return "(" + x + " % " + y + ")"
	case 5:
		return "CASE WHEN " + x + " > " + y + " THEN " + x + " ELSE " + y + " END"
	case 6:
		return "coalesce(" + x + ", " + y + ")"
	case 7:
		return "(" + x + " || " + y + ")"
	case 8:
		return "CAST(" + x + " AS " + []string{"int4", "int8", "int2", "numeric(12,3)", "text", "float8"}[r.IntN(6)] + ")"
	case 9:
		return "(-" + x + ")"
	case 10:
		return "abs(" + x + ")"
	}
	return fmt.Sprintf("(%s IN (%s, %s))", x, y, strings.TrimSpace(randExpr(r, 0)))
}
