package upsfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Common UPS error codes (valid for all APIs, developer.ups.com error
// pages): 10001 The request is not well formed; 20007 Missing Required
// field, {0}; 20008 The field, {0}, contains invalid data, {1}.
const (
	codeNotWellFormed = "10001"
	codeMissing       = "20007"
	codeInvalid       = "20008"
)

// checker validates a decoded JSON request against the documented schema
// and collects every problem as a UPS error.
type checker struct {
	errs []apiError
	// account is the caller's shipper number (accountOf).
	account string
}

func (c *checker) ok() bool { return len(c.errs) == 0 }

func (c *checker) missing(path string) {
	c.errs = append(c.errs, apiError{codeMissing, fmt.Sprintf("Missing Required field, %s.", path)})
}

func (c *checker) invalid(path, why string) {
	c.errs = append(c.errs, apiError{codeInvalid, fmt.Sprintf("The field, %s, contains invalid data, %s.", path, why)})
}

func (c *checker) fail(code, msg string) {
	c.errs = append(c.errs, apiError{code, msg})
}

// decode parses a request body keeping numbers as json.Number, so that a
// number sent where UPS documents a string is caught.
func decode(body []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON object")
	}
	return m, nil
}

// lookup follows a dotted path through objects.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// absent is a parent that was already reported missing: its members are
// not reported again.
func absent(v any) bool {
	if v == nil {
		return true
	}
	m, ok := v.(map[string]any)
	return ok && m == nil
}

func join(base, path string) string {
	if base == "" {
		return path
	}
	return base + "." + path
}

// object requires an object at path.
func (c *checker) object(v any, base, path string) map[string]any {
	if absent(v) {
		return nil
	}
	x, ok := lookup(v, path)
	if !ok || x == nil {
		c.missing(join(base, path))
		return nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		c.invalid(join(base, path), "not an object")
		return nil
	}
	return m
}

// optObject returns the object at path, or nil when it is absent.
func (c *checker) optObject(v any, base, path string) map[string]any {
	if absent(v) {
		return nil
	}
	x, ok := lookup(v, path)
	if !ok || x == nil {
		return nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		c.invalid(join(base, path), "not an object")
		return nil
	}
	return m
}

// array requires a JSON array at path (the v2409 APIs document arrays).
func (c *checker) array(v any, base, path string) []any {
	if absent(v) {
		return nil
	}
	x, ok := lookup(v, path)
	if !ok || x == nil {
		c.missing(join(base, path))
		return nil
	}
	a, ok := x.([]any)
	if !ok {
		c.invalid(join(base, path), "not an array")
		return nil
	}
	return a
}

// str requires a non-empty string of at most maxLen characters (0: no limit).
func (c *checker) str(v any, base, path string, maxLen int) string {
	if absent(v) {
		return ""
	}
	x, ok := lookup(v, path)
	if !ok || x == nil {
		c.missing(join(base, path))
		return ""
	}
	s, ok := x.(string)
	if !ok {
		c.invalid(join(base, path), fmt.Sprintf("%v is not a string", x))
		return ""
	}
	if strings.TrimSpace(s) == "" {
		c.missing(join(base, path))
		return ""
	}
	if maxLen > 0 && utf8.RuneCountInString(s) > maxLen {
		c.invalid(join(base, path), fmt.Sprintf("longer than %d characters", maxLen))
	}
	return s
}

// optStr returns the string at path ("" when absent); present says whether
// the member was sent at all (presence indicators carry no value).
func (c *checker) optStr(v any, base, path string, maxLen int) (s string, present bool) {
	if absent(v) {
		return "", false
	}
	x, ok := lookup(v, path)
	if !ok || x == nil {
		return "", false
	}
	s, ok = x.(string)
	if !ok {
		c.invalid(join(base, path), fmt.Sprintf("%v is not a string", x))
		return "", true
	}
	if maxLen > 0 && utf8.RuneCountInString(s) > maxLen {
		c.invalid(join(base, path), fmt.Sprintf("longer than %d characters", maxLen))
	}
	return s, true
}

// positive requires a string holding a number greater than zero.
func (c *checker) positive(v any, base, path string, maxLen int) float64 {
	s := c.str(v, base, path, maxLen)
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) {
		c.invalid(join(base, path), fmt.Sprintf("%q is not a positive number", s))
		return 0
	}
	return f
}

// oneOf requires a string from the allowed values.
func (c *checker) oneOf(v any, base, path string, allowed ...string) string {
	s := c.str(v, base, path, 0)
	if s == "" {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	c.invalid(join(base, path), fmt.Sprintf("%q is not one of %s", s, strings.Join(allowed, ", ")))
	return ""
}

// stringArray requires an array of 1..maxItems non-empty strings of at most maxLen.
func (c *checker) stringArray(v any, base, path string, maxItems, maxLen int) []string {
	a := c.array(v, base, path)
	if a == nil {
		return nil
	}
	if len(a) == 0 || len(a) > maxItems {
		c.invalid(join(base, path), fmt.Sprintf("%d lines, want 1 to %d", len(a), maxItems))
	}
	var out []string
	for i, x := range a {
		s, ok := x.(string)
		if !ok || strings.TrimSpace(s) == "" {
			c.invalid(fmt.Sprintf("%s[%d]", join(base, path), i), "not a non-empty string")
			continue
		}
		if utf8.RuneCountInString(s) > maxLen {
			c.invalid(fmt.Sprintf("%s[%d]", join(base, path), i), fmt.Sprintf("longer than %d characters", maxLen))
		}
		out = append(out, s)
	}
	return out
}

func isDigits(s string) bool {
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
