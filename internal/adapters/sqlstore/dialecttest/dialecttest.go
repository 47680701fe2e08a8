// Package dialecttest is the conformance test of sqlstore.Dialect: each engine's tests run it
// against a live database, so a wrong spelling fails here, by name, rather than somewhere in
// the repositories' suite.
package dialecttest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jmoiron/sqlx"

	"moviesdiary/internal/adapters/sqlstore"
)

// Run checks every spelling of d against db, a migrated database of d's engine.
func Run(t *testing.T, db *sqlx.DB, d sqlstore.Dialect) {
	t.Helper()
	ctx := context.Background()
	get := func(t *testing.T, dest any, query string, args ...any) {
		t.Helper()
		if err := db.GetContext(ctx, dest, d.Rebind(query), args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	truth := func(t *testing.T, cond string, args ...any) bool {
		t.Helper()
		var n int
		get(t, &n, `SELECT CASE WHEN `+cond+` THEN 1 ELSE 0 END`, args...)
		return n == 1
	}
	t.Run("SameText", func(t *testing.T) {
		if !truth(t, d.SameText("'Arrival'"), "aRRIVAL") || truth(t, d.SameText("'Arrival'"), "Arrivals") {
			t.Error("SameText must match without case, and nothing else")
		}
	})
	t.Run("Like", func(t *testing.T) {
		if !truth(t, `'Arrival' `+d.Like()+` ?`, "%RIV%") || truth(t, `'Arrival' `+d.Like()+` ?`, "%rive%") {
			t.Error("Like must match a pattern without case, and nothing else")
		}
	})
	words := `(SELECT 'b' AS v UNION ALL SELECT 'A' UNION ALL SELECT 'a' UNION ALL SELECT 'C') w`
	t.Run("NoCase", func(t *testing.T) {
		var got []string
		if err := db.SelectContext(ctx, &got, `SELECT v FROM `+words+` ORDER BY `+d.NoCase("v")+`, `+d.Binary("v")); err != nil {
			t.Fatal(err)
		}
		if want := []string{"A", "a", "b", "C"}; !reflect.DeepEqual(got, want) {
			t.Errorf("ordered %v, want %v", got, want)
		}
	})
	t.Run("Binary", func(t *testing.T) {
		var got []string
		if err := db.SelectContext(ctx, &got, `SELECT v FROM `+words+` ORDER BY `+d.Binary("v")); err != nil {
			t.Fatal(err)
		}
		if want := []string{"A", "C", "a", "b"}; !reflect.DeepEqual(got, want) {
			t.Errorf("ordered %v, want %v (byte order)", got, want)
		}
	})
	t.Run("IfNull", func(t *testing.T) {
		var got string
		get(t, &got, `SELECT `+d.IfNull("CAST(? AS TEXT)", "'x'"), nil)
		if got != "x" {
			t.Errorf("IfNull(NULL, 'x') = %q", got)
		}
	})
	t.Run("Greatest", func(t *testing.T) {
		var got int
		get(t, &got, `SELECT `+d.Greatest()+`(3, 7, 5)`)
		if got != 7 {
			t.Errorf("Greatest(3, 7, 5) = %d", got)
		}
	})
	t.Run("PadYear", func(t *testing.T) {
		var got string
		get(t, &got, `SELECT `+d.PadYear("999"))
		if got != "0999" {
			t.Errorf("PadYear(999) = %q", got)
		}
	})
	t.Run("IntsFromJSON", func(t *testing.T) {
		if !truth(t, `5 IN (`+d.IntsFromJSON()+`)`, "[1,5,9]") || truth(t, `4 IN (`+d.IntsFromJSON()+`)`, "[1,5,9]") {
			t.Error("IntsFromJSON must list the array's integers")
		}
	})
	t.Run("JSONElements", func(t *testing.T) {
		var n int
		get(t, &n, `SELECT count(*) FROM `+d.JSONElements("?", "g")+` WHERE `+d.SameText("g.value"), `["Drama","Sci-Fi"]`, "sci-fi")
		if n != 1 {
			t.Errorf("found %d elements, want 1", n)
		}
	})
	t.Run("JSONArrayOf", func(t *testing.T) {
		rows := `(SELECT 1 AS n, 'x' AS s UNION ALL SELECT 2, 'y') q`
		fields := [][2]string{{"n", "q.n"}, {"s", "q.s"}}
		var got string
		get(t, &got, `SELECT `+d.JSONArrayOf(fields, rows, `q.n DESC`))
		var objs []map[string]any
		if err := json.Unmarshal([]byte(got), &objs); err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		if want := []map[string]any{{"n": 2.0, "s": "y"}, {"n": 1.0, "s": "x"}}; !reflect.DeepEqual(objs, want) {
			t.Errorf("got %v, want %v", objs, want)
		}
		get(t, &got, `SELECT `+d.JSONArrayOf(fields, rows+` WHERE q.n > 2`, `q.n`))
		if got != "[]" {
			t.Errorf("no rows: %q, want []", got)
		}
	})
	t.Run("FixedJoin", func(t *testing.T) {
		var n int
		get(t, &n, `SELECT count(*) FROM (SELECT 1 AS a) x `+d.FixedJoin()+` (SELECT 1 AS b) y ON x.a = y.b`)
		if n != 1 {
			t.Errorf("joined %d rows, want 1", n)
		}
	})
	t.Run("RowIDAndTieBreak", func(t *testing.T) {
		var n int
		get(t, &n, `SELECT count(*) FROM (SELECT r.`+d.RowID()+` AS rid FROM reviews r ORDER BY 1) t`)
		get(t, &n, `SELECT count(*) FROM (SELECT a.id FROM ap_activities a ORDER BY `+d.TieBreak("a")+`) t`)
	})
	t.Run("UniqueViolation", func(t *testing.T) {
		err := d.Write(ctx, func(tx *sqlx.Tx) error {
			for _, q := range []string{`CREATE TEMP TABLE dialect_probe (k INTEGER PRIMARY KEY)`,
				`INSERT INTO dialect_probe (k) VALUES (1)`, `INSERT INTO dialect_probe (k) VALUES (1)`} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
		if _, ok := d.UniqueViolation(err); !ok {
			t.Errorf("a repeated key: %v, not a unique violation", err)
		}
		if d.Deadlock(err) {
			t.Errorf("a repeated key is no deadlock: %v", err)
		}
	})
}
