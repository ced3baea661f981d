package carriers_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	date := func(d time.Duration) string { return now.Add(d).Format(http.TimeFormat) }
	for _, tt := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"7", 7 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"3600", time.Hour},
		{"3601", time.Hour},
		{"86400000", time.Hour},
		{"999999999999", time.Hour},
		{"99999999999999999999999999999999", time.Hour},
		{"0000000000000000000000000030", 30 * time.Second},
		{"0", 0},
		{"-3", 0},
		{"-999999999999", 0},
		{"+5", 0},
		{"1.5", 0},
		{"soon", 0},
		{"7 seconds", 0},
		{date(30 * time.Second), 30 * time.Second},
		{date(-time.Hour), 0},
		{date(0), 0},
		{date(500 * time.Millisecond), 0}, // HTTP dates have whole seconds: this is now
		{date(2 * time.Hour), time.Hour},
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Hour},
		{"Mon, 01 Jan 0001 00:00:00 GMT", 0},
		{"Monday, 02-Mar-26 15:01:00 GMT", time.Minute}, // RFC 850, still allowed
		{"Mon Mar  2 15:00:10 2026", 10 * time.Second},  // asctime
	} {
		if got := carriers.ParseRetryAfter(tt.header, now); got != tt.want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "999999999999", "-1", "Fri, 31 Dec 9999 23:59:59 GMT", "soon", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, header string) {
		got := carriers.ParseRetryAfter(header, now)
		if got != 0 && (got < carriers.MinRetryAfter || got > carriers.MaxRetryAfter) {
			t.Fatalf("ParseRetryAfter(%q) = %v, outside [%v, %v]", header, got, carriers.MinRetryAfter, carriers.MaxRetryAfter)
		}
	})
}
