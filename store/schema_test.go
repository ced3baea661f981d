package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "github.com/mattn/go-sqlite3"
)

// schema is what a database's tables are, in words both dialects share, so
// that a SQLite and a PostgreSQL schema compare with cmp.Diff: per table,
// its columns (type class, NOT NULL, primary key), its indexes (unique,
// partial, columns; by content, since the dialects name implicit ones
// differently), its foreign keys and how many CHECK constraints it has.
type schema map[string]table

type table struct {
	Columns     map[string]column
	Indexes     []string
	ForeignKeys []string
	Checks      int
}

type column struct {
	Type    string
	NotNull bool
	Key     bool
}

// ownTable reports whether name is one of shipd's tables rather than
// River's (whose schema River's migrations own, per driver) or the
// database's own.
func ownTable(name string) bool {
	return !strings.HasPrefix(name, "river_") && !strings.HasPrefix(name, "sqlite_")
}

// typeClass is a declared type's class: the dialects spell the same
// intent differently (TEXT / text, varchar; INTEGER / bigint, integer;
// TIMESTAMP / timestamptz; BLOB / bytea), and SQLite has no boolean, so an
// INTEGER 0/1 there is PostgreSQL's boolean.
func typeClass(t string) string {
	switch t = strings.ToLower(t); {
	case t == "text", strings.HasPrefix(t, "character varying"), strings.HasPrefix(t, "varchar"), t == "jsonb", t == "json":
		return "text"
	case t == "integer", t == "bigint", t == "smallint", t == "boolean", t == "bigserial", t == "serial":
		return "integer"
	case strings.HasPrefix(t, "timestamp"), t == "datetime", t == "date":
		return "time"
	case t == "blob", t == "bytea":
		return "bytes"
	case t == "real", t == "double precision", t == "numeric":
		return "real"
	}
	return "?" + t
}

func sqliteSchema(t *testing.T, ctx context.Context, db *sql.DB) schema {
	t.Helper()
	out := schema{}
	var tables []string
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if ownTable(n) {
			tables = append(tables, n)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range tables {
		tb := table{Columns: map[string]column{}}
		query(t, ctx, db, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, []any{name}, func(r *sql.Rows) error {
			var n, typ string
			var notNull, pk int
			if err := r.Scan(&n, &typ, &notNull, &pk); err != nil {
				return err
			}
			// A primary key is NOT NULL in PostgreSQL; in SQLite only if
			// said, though shipd never stores a NULL key.
			tb.Columns[n] = column{Type: typeClass(typ), NotNull: notNull == 1 || pk > 0, Key: pk > 0}
			return nil
		})
		type idx struct {
			name    string
			unique  bool
			origin  string
			partial bool
		}
		var idxs []idx
		query(t, ctx, db, `SELECT name, "unique", origin, partial FROM pragma_index_list(?)`, []any{name}, func(r *sql.Rows) error {
			var i idx
			if err := r.Scan(&i.name, &i.unique, &i.origin, &i.partial); err != nil {
				return err
			}
			idxs = append(idxs, i)
			return nil
		})
		for _, i := range idxs {
			if i.origin == "pk" {
				continue // the primary key's columns say it
			}
			var cols []string
			query(t, ctx, db, `SELECT coalesce(name, 'expr') FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`, []any{i.name}, func(r *sql.Rows) error {
				var c string
				if err := r.Scan(&c); err != nil {
					return err
				}
				cols = append(cols, c)
				return nil
			})
			tb.Indexes = append(tb.Indexes, indexWords(i.unique, i.partial, cols))
		}
		sort.Strings(tb.Indexes)
		fks := map[int][]string{}
		refs := map[int]string{}
		query(t, ctx, db, `SELECT id, "table", "from", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, []any{name}, func(r *sql.Rows) error {
			var id int
			var ref, from, onDelete string
			if err := r.Scan(&id, &ref, &from, &onDelete); err != nil {
				return err
			}
			fks[id] = append(fks[id], from)
			refs[id] = ref + " on delete " + strings.ToLower(onDelete)
			return nil
		})
		for id, cols := range fks {
			tb.ForeignKeys = append(tb.ForeignKeys, "("+strings.Join(cols, ",")+") → "+refs[id])
		}
		sort.Strings(tb.ForeignKeys)
		var ddl string
		if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		tb.Checks = strings.Count(strings.ToUpper(ddl), "CHECK (") + strings.Count(strings.ToUpper(ddl), "CHECK(")
		out[name] = tb
	}
	return out
}

func postgresSchema(t *testing.T, ctx context.Context, db *sql.DB) schema {
	t.Helper()
	out := schema{}
	query(t, ctx, db, `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name IN (SELECT table_name FROM information_schema.tables
			WHERE table_schema = 'public' AND table_type = 'BASE TABLE')`, nil, func(r *sql.Rows) error {
		var tn, cn, typ, nullable string
		if err := r.Scan(&tn, &cn, &typ, &nullable); err != nil {
			return err
		}
		if !ownTable(tn) {
			return nil
		}
		tb, ok := out[tn]
		if !ok {
			tb = table{Columns: map[string]column{}}
		}
		tb.Columns[cn] = column{Type: typeClass(typ), NotNull: nullable == "NO"}
		out[tn] = tb
		return nil
	})
	query(t, ctx, db, `SELECT c.relname, a.attname FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (k.conkey)
		WHERE k.contype = 'p' AND n.nspname = 'public'`, nil, func(r *sql.Rows) error {
		var tn, cn string
		if err := r.Scan(&tn, &cn); err != nil {
			return err
		}
		if tb, ok := out[tn]; ok {
			c := tb.Columns[cn]
			c.Key = true
			tb.Columns[cn] = c
		}
		return nil
	})
	type key struct{ table, index string }
	cols := map[key][]string{}
	flags := map[key][2]bool{}
	query(t, ctx, db, `SELECT t.relname, i.relname, x.indisunique, x.indpred IS NOT NULL,
			coalesce(a.attname, 'expr')
		FROM pg_index x
		JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_namespace n ON n.oid = t.relnamespace
		CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
		LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum AND k.attnum <> 0
		WHERE n.nspname = 'public' AND NOT x.indisprimary AND k.ord <= x.indnkeyatts
		ORDER BY t.relname, i.relname, k.ord`, nil, func(r *sql.Rows) error {
		var tn, in, cn string
		var unique, partial bool
		if err := r.Scan(&tn, &in, &unique, &partial, &cn); err != nil {
			return err
		}
		k := key{tn, in}
		cols[k] = append(cols[k], cn)
		flags[k] = [2]bool{unique, partial}
		return nil
	})
	for k, c := range cols {
		if tb, ok := out[k.table]; ok {
			tb.Indexes = append(tb.Indexes, indexWords(flags[k][0], flags[k][1], c))
			out[k.table] = tb
		}
	}
	query(t, ctx, db, `SELECT c.relname, k.contype, coalesce(f.relname, ''), k.confdeltype,
			array_to_string(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS u(n, o)
				JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.n ORDER BY u.o), ',')
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_class f ON f.oid = k.confrelid
		WHERE n.nspname = 'public' AND k.contype IN ('f', 'c')`, nil, func(r *sql.Rows) error {
		var tn, typ, ref, onDelete, cs string
		if err := r.Scan(&tn, &typ, &ref, &onDelete, &cs); err != nil {
			return err
		}
		tb, ok := out[tn]
		if !ok {
			return nil
		}
		switch typ {
		case "c":
			tb.Checks++
		case "f":
			tb.ForeignKeys = append(tb.ForeignKeys, "("+cs+") → "+ref+" on delete "+pgAction[onDelete])
		}
		out[tn] = tb
		return nil
	})
	for n, tb := range out {
		sort.Strings(tb.Indexes)
		sort.Strings(tb.ForeignKeys)
		out[n] = tb
	}
	return out
}

// pgAction spells pg_constraint.confdeltype as SQLite's foreign_key_list does.
var pgAction = map[string]string{"a": "no action", "r": "restrict", "c": "cascade", "n": "set null", "d": "set default"}

func indexWords(unique, partial bool, cols []string) string {
	s := "(" + strings.Join(cols, ",") + ")"
	if unique {
		s += " unique"
	}
	if partial {
		s += " partial"
	}
	return s
}

// query runs q and calls each for every row, failing t on any error.
func query(t *testing.T, ctx context.Context, db *sql.DB, q string, args []any, each func(*sql.Rows) error) {
	t.Helper()
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%.50s: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}

// migrationNames reads schema_migrations.
func migrationNames(t *testing.T, ctx context.Context, db *sql.DB) []string {
	t.Helper()
	var names []string
	query(t, ctx, db, `SELECT name FROM schema_migrations ORDER BY name`, nil, func(r *sql.Rows) error {
		var n string
		names = append(names, n)
		return r.Scan(&names[len(names)-1])
	})
	return names
}

func must(t *testing.T, err error, what ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprint(what...), err)
	}
}
