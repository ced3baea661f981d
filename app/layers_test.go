package app_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers enforces the import rule of ARCHITECTURE.md: each layer talks
// only to the one below. It reads the real import graph with go list.
func TestLayers(t *testing.T) {
	t.Parallel()
	const mod = "github.com/shipd-dev/shipd/"
	pkgs := goList(t, "github.com/shipd-dev/shipd/...")

	domain := []string{"accounts", "shipping", "webhooks", "idempotency", "paging"}
	// features are shipping's feature packages, which stand on it.
	features := []string{"shipping/manifests", "shipping/pickups", "shipping/carrieraccounts", "shipping/trackers", "shipping/batches", "shipping/labeljobs", "shipping/customs", "shipping/addresses"}
	rules := []struct {
		pkg string
		// direct: imports the package itself must not have.
		direct []string
		// anywhere: packages that must not be in its dependency graph at all.
		anywhere []string
	}{
		// HTTP only: no SQL, no job queue, no transactions.
		{pkg: "server", direct: []string{"github.com/jmoiron/sqlx", "github.com/mattn/go-sqlite3", "database/sql", "github.com/riverqueue/river", mod + "store"}},
		// The domain knows nothing of HTTP or of the generated wire types.
		{pkg: "accounts", anywhere: []string{mod + "gen", "github.com/labstack/echo/v4", mod + "server"}},
		// The shipments domain stands under its feature packages, never on them.
		{pkg: "shipping", anywhere: append(prefixed(mod, features), mod+"gen", "github.com/labstack/echo/v4", mod+"server")},
		{pkg: "webhooks", anywhere: []string{mod + "gen", "github.com/labstack/echo/v4", mod + "server"}},
		{pkg: "idempotency", anywhere: []string{mod + "gen", "github.com/labstack/echo/v4", mod + "server"}},
		// Persistence imports no domain package.
		{pkg: "store", anywhere: append(prefixed(mod, append(domain[:4:4], features...)), mod+"gen", "github.com/labstack/echo/v4", mod+"server")},
		// Receivers import only the standard library.
		{pkg: "webhooks/signature", anywhere: []string{mod + "store", "github.com/riverqueue/river", "github.com/mattn/go-sqlite3"}},
		// The settings UI calls the domain services like the API: no SQL, no job queue, no wire types.
		{pkg: "ui", direct: []string{mod + "store", "github.com/jmoiron/sqlx", "database/sql", "github.com/riverqueue/river"},
			anywhere: []string{mod + "gen", "github.com/labstack/echo/v4", mod + "server"}},
		// The carriers are adapters below the domain.
		{pkg: "carriers", anywhere: append(prefixed(mod, append(domain[:5:5], features...)), mod+"store", mod+"gen", mod+"server")},
	}
	// The feature packages of shipping are domain too.
	for _, f := range features {
		rules = append(rules, struct {
			pkg      string
			direct   []string
			anywhere []string
		}{pkg: f, anywhere: []string{mod + "gen", "github.com/labstack/echo/v4", mod + "server", mod + "ui"}})
	}
	for _, r := range rules {
		p, ok := pkgs[mod+r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, bad := range r.direct {
			if slices.Contains(p.Imports, bad) {
				t.Errorf("%s imports %s", r.pkg, bad)
			}
		}
		for _, bad := range r.anywhere {
			if slices.Contains(p.Deps, bad) {
				t.Errorf("%s depends on %s", r.pkg, bad)
			}
		}
	}
	// Leaf packages import nothing of shipd: the PDF merger reads hostile
	// input and is fuzzed alone, so nothing of the domain may reach into it.
	for _, leaf := range []string{"internal/pdfmerge", "internal/pdfmerge/pdftest"} {
		p, ok := pkgs[mod+leaf]
		if !ok {
			t.Errorf("package %s not found", leaf)
			continue
		}
		for _, dep := range p.Deps {
			if strings.HasPrefix(dep, mod) {
				t.Errorf("%s depends on %s: it is a leaf", leaf, strings.TrimPrefix(dep, mod))
			}
		}
	}
	// No package outside store writes River's tables or opens the database driver.
	for path, p := range pkgs {
		if path == mod+"store" || strings.HasPrefix(path, mod+"store/") || strings.HasPrefix(path, mod+"bench/") {
			continue
		}
		for _, bad := range []string{"github.com/mattn/go-sqlite3", "github.com/jmoiron/sqlx", "github.com/riverqueue/river/riverdriver/riversqlite"} {
			if slices.Contains(p.Imports, bad) {
				t.Errorf("%s imports %s: only store/ talks to the database", strings.TrimPrefix(path, mod), bad)
			}
		}
	}
}

type listed struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func goList(t *testing.T, pattern string) map[string]listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", pattern).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listed{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func prefixed(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}
