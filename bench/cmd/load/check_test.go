package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckRegression(t *testing.T) {
	t.Parallel()
	committed := &results{GeneratedAt: "then", Config: map[string]any{"phases": "read,purchase"}}
	committed.Read.Ratio, committed.Purchase.PerSec = 0.20, 500
	path := filepath.Join(t.TempDir(), "latest.json")
	if err := committed.write(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		phases      string
		ratio, rate float64
		fails       string // the measure named in the error; "" passes
	}{
		{"both within 20%", "read,purchase", 0.17, 410, ""},
		{"faster", "read,purchase", 0.30, 900, ""},
		{"read path regressed", "read,purchase", 0.15, 500, "read path"},
		{"purchases regressed", "read,purchase", 0.20, 390, "purchases"},
		{"purchase phase not run", "read", 0.19, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := &results{Config: map[string]any{"phases": tc.phases}}
			run.Read.Ratio, run.Purchase.PerSec = tc.ratio, tc.rate
			var out bytes.Buffer
			err := checkRegression(&out, path, run)
			switch {
			case tc.fails == "" && err != nil:
				t.Fatalf("failed: %v\n%s", err, out.String())
			case tc.fails != "" && (err == nil || !strings.Contains(err.Error(), tc.fails)):
				t.Fatalf("error %v, want one naming %q\n%s", err, tc.fails, out.String())
			}
		})
	}
}
