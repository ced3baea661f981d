package ui

import (
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// refuseUnstorableText answers a request carrying text PostgreSQL cannot
// store before any page reads it: U+0000, which its text cannot hold, and
// bytes that are not UTF-8 (SQLSTATE 22021). The lookup or write would fail
// there, an error page for what is the browser's mistake, while SQLite
// keeps both, so the check makes both backends answer alike, as the API's
// does. A path with either names no page (404); a form or query value
// with either is 422, naming the field.
func (u *UI) refuseUnstorableText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unstorable(r.URL.Path) {
			u.renderError(w, r, nil, http.StatusNotFound, "There is no such page.")
			return
		}
		var values url.Values
		if strings.Contains(r.URL.RawQuery, "%") {
			values = r.URL.Query()
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); r.Method == http.MethodPost && mt == "multipart/form-data" {
			// An upload (a rate sheet) is read after sign-in by its page
			// (parseUpload), which checks its fields as these are; its file
			// is judged by its own validator.
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			// This is the one ParseForm of the request (the pages' parseForm
			// finds it done), so its error is answered here as there.
			r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
			if err := r.ParseForm(); err != nil {
				u.renderError(w, r, nil, http.StatusBadRequest, "The form could not be read. Reload the page and try again.")
				return
			}
			values = r.Form
		}
		for _, name := range slices.Sorted(maps.Keys(values)) {
			bad := slices.IndexFunc(values[name], unstorable)
			if !unstorable(name) && bad < 0 {
				continue
			}
			what := "contains a NUL character, which is not allowed"
			if !utf8.ValidString(name) || bad >= 0 && !utf8.ValidString(values[name][bad]) {
				what = "is not UTF-8 text (the browser sent bytes that are not characters)"
			}
			shown := strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), "")
			u.renderError(w, r, nil, http.StatusUnprocessableEntity, "The field “"+shown+"” "+what+". Remove it and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// unstorableValue names the first field (in name order) whose name or a
// value is unstorable.
func unstorableValue(values map[string][]string) (string, bool) {
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if unstorable(name) || slices.ContainsFunc(values[name], unstorable) {
			return strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), ""), true
		}
	}
	return "", false
}

// unstorable reports whether s is text PostgreSQL cannot store: NUL, or
// not UTF-8.
func unstorable(s string) bool { return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) }
