package server_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// A cursor must work only for the account and list that produced it, and
// must not expose a global row counter.
func TestCursorsAreBoundToAccountAndList(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range 3 {
		if r := b.do("POST", "/api/v1/addresses", b.token, validAddress()); r.Status != http.StatusCreated {
			t.Fatalf("create address: %d %s", r.Status, r.Body)
		}
	}
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		NextCursor *string `json:"nextCursor"`
	}
	b.do("GET", "/api/v1/addresses?limit=2", b.token, nil).Decode(t, &page)
	if page.NextCursor == nil {
		t.Fatal("first page of 3 with limit 2 has no nextCursor")
	}
	raw, err := base64.RawURLEncoding.DecodeString(*page.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "v1:" + page.Data[1].ID; string(raw) != want {
		t.Errorf("cursor decodes to %q, want the last item's id %q", raw, want)
	}

	other := b.newAccount("Other", true)
	_, otherToken := b.newToken(other.ID, "test", allScopes...)
	r := b.do("GET", "/api/v1/addresses?limit=2&cursor="+*page.NextCursor, otherToken, nil)
	if m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field"); m["field"] != "cursor" {
		t.Errorf("field = %v, want cursor", m["field"])
	}
	r = b.do("GET", "/api/v1/labels?cursor="+*page.NextCursor, b.token, nil)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")

	forged := base64.RawURLEncoding.EncodeToString([]byte("v1:" + strings.Repeat("x", 10)))
	wantError(t, b.do("GET", "/api/v1/addresses?cursor="+forged, b.token, nil), http.StatusUnprocessableEntity, "invalid_field")

	var next struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	b.do("GET", "/api/v1/addresses?limit=2&cursor="+*page.NextCursor, b.token, nil).Decode(t, &next)
	if len(next.Data) != 1 {
		t.Fatalf("second page has %d items, want 1", len(next.Data))
	}
}
