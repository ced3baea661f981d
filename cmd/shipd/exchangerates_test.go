package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve reads --exchange-rates at start: rates a week old or more are
// served (the answer stays ready) with a warning in the start log and in
// /readyz; a file that does not read refuses the start.
func TestServeExchangeRates(t *testing.T) {
	t.Parallel()
	ecb, err := os.ReadFile("../../exchangerates/testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "eurofxref-daily.xml")
	// The ECB's file of a day years ago: stale whenever this runs.
	if err := os.WriteFile(path, bytes.Replace(ecb, []byte("time='2026-11-27'"), []byte("time='2020-01-02'"), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, filepath.Join(dir, "shipd.db"), "--exchange-rates", path)
	res, err := http.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ready struct {
		Status        string
		ExchangeRates struct{ Date, Warning string }
	}
	if err := json.NewDecoder(res.Body).Decode(&ready); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || ready.Status != "ready" || ready.ExchangeRates.Date != "2020-01-02" ||
		!strings.Contains(ready.ExchangeRates.Warning, "days old: refresh "+path+" from the ECB") {
		t.Errorf("readyz %d %+v, want ready with the rates' date and a staleness warning", res.StatusCode, ready)
	}
	if !strings.Contains(s.stderr.String(), `"msg":"stale exchange rates`) {
		t.Errorf("no stale rates warning in the start log:\n%s", s.stderr.String())
	}

	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte("<html>not the ECB</html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "serve", "--db", filepath.Join(dir, "other.db"), "--exchange-rates", bad)
	if code != 2 || !strings.Contains(stderr, "serve: --exchange-rates (SHIPD_EXCHANGE_RATES): exchange rates") {
		t.Errorf("a file that does not read: exit %d, %s", code, stderr)
	}
}
