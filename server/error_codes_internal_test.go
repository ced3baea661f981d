package server

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
)

// codesAnswered are the error codes this package can answer with: the
// literal code of every newAPIError and errorBody call and of every
// assignment to a variable named code in its source, and the codes the
// domain gives a refund's conflicts (RefundConflictError.Code), which the
// error table passes on.
func codesAnswered(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	add := func(lit ast.Expr) {
		if bl, ok := lit.(*ast.BasicLit); ok && bl.Kind == token.STRING {
			if code, err := strconv.Unquote(bl.Value); err == nil && !slices.Contains(codes, code) {
				codes = append(codes, code)
			}
		}
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "newAPIError" || id.Name == "errorBody") && len(n.Args) >= 2 {
					add(n.Args[1])
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name == "code" && i < len(n.Rhs) {
						add(n.Rhs[i])
					}
				}
			}
			return true
		})
	}
	for _, s := range shipping.Statuses() {
		for _, tracking := range []string{"", carriers.StatusDelivered} {
			var conflict *shipping.RefundConflictError
			if errors.As(shipping.CanRefundLabel(s, tracking), &conflict) && !slices.Contains(codes, conflict.Code) {
				codes = append(codes, conflict.Code)
			}
		}
	}
	slices.Sort(codes)
	return codes
}

// TestEveryErrorCodeIsListed: the contract's ErrorCode lists every code the
// server answers with, and nothing it never does but the codes of earlier
// servers, so a client's constants are the server's codes.
func TestEveryErrorCodeIsListed(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Extensions["x-extensible-enum"].([]any) {
		listed = append(listed, v.(string))
	}
	// Codes kept in the list for clients of earlier servers.
	retired := []string{"idempotency_response_lost"}
	answered := codesAnswered(t)
	if len(answered) < 40 {
		t.Fatalf("found only %d codes in the source: %v", len(answered), answered)
	}
	var want []string
	for _, code := range listed {
		if !slices.Contains(retired, code) {
			want = append(want, code)
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, answered); diff != "" {
		t.Errorf("ErrorCode's known codes (-listed +answered by the server):\n%s", diff)
	}
}
