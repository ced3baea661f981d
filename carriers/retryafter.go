package carriers

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MinRetryAfter is the shortest wait ParseRetryAfter reports: shipd's own
// Retry-After headers count whole seconds, and "retry in 0.2 s" read as 0
// would mean "no advice".
const MinRetryAfter = time.Second

// ParseRetryAfter reads a carrier's Retry-After header received at now, in
// either form RFC 9110 allows: delay-seconds ("120") or an HTTP date. It
// answers 0 when the header is absent, unreadable, negative, zero or a date
// already past (the carrier gave no wait worth reporting), and otherwise a
// wait clamped to [MinRetryAfter, MaxRetryAfter]: the value reaches API
// clients as their own Retry-After and pauses the carrier's quota, and a
// carrier's mistake ("86400000", a date in the year 9999) must not park
// purchases for days. Numbers of any length are read without overflow.
func ParseRetryAfter(header string, now time.Time) time.Duration {
	v := strings.TrimSpace(header)
	if v == "" {
		return 0
	}
	var d time.Duration
	if isASCIIDigits(v) {
		// Anything longer than the hour's digits is more than an hour;
		// comparing lengths first keeps ParseInt from overflowing.
		trimmed := strings.TrimLeft(v, "0")
		if trimmed == "" {
			return 0
		}
		if len(trimmed) > 6 {
			return MaxRetryAfter
		}
		secs, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return 0
		}
		d = time.Duration(secs) * time.Second
	} else {
		t, err := http.ParseTime(v)
		if err != nil {
			// "-3", "1.5", "soon": not a Retry-After.
			return 0
		}
		// Sub saturates instead of overflowing, so a date centuries away
		// is simply more than an hour.
		d = t.Sub(now)
		if d <= 0 {
			return 0
		}
	}
	return min(max(d, MinRetryAfter), MaxRetryAfter)
}

func isASCIIDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
