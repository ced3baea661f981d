package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/shipd-dev/shipd/store"
)

// Every exported method of *store.Store and *store.Tx is called by the
// conformance suite (store/storetest), which runs on SQLite, SQLite with
// caches and PostgreSQL: a method only the HTTP tests reach is a method
// whose behaviour on one of the databases nobody checks. The suite's calls
// are read from its source by name, so a method called there on any
// receiver counts; the suite calls store methods only on the store.
func TestConformanceSuiteCallsEveryMethod(t *testing.T) {
	called := map[string]bool{}
	files, err := filepath.Glob("storetest/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the suite's files: %v (%d)", err, len(files))
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					called[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	var missing []string
	for _, typ := range []reflect.Type{reflect.TypeFor[*store.Store](), reflect.TypeFor[*store.Tx]()} {
		for i := range typ.NumMethod() {
			m := typ.Method(i).Name
			if !called[m] {
				missing = append(missing, typ.Elem().Name()+"."+m)
			}
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s is not called by the conformance suite (store/storetest)", m)
	}
}
