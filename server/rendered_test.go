package server_test

import (
	"bytes"
	"net/http"
	"testing"
)

// GET /labels/{id} answers from the encoding it kept (rendered.go) only
// while the shipment is unchanged: the same bytes while nothing happens to
// it, and the change in the very next read once something does.
func TestLabelReadsFollowEveryChange(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	id := createLabel(t, b, b.token, labelBody()).ID
	waitForStatus(t, b, b.token, id, "purchased")
	first := b.doT(t, "GET", "/api/v1/labels/"+id, b.token, nil)
	wantStatus(t, first, http.StatusOK)
	again := b.doT(t, "GET", "/api/v1/labels/"+id, b.token, nil)
	wantStatus(t, again, http.StatusOK)
	if !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("two reads of an unchanged label differ:\n%s\n%s", first.Body, again.Body)
	}
	if ct := again.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}

	wantStatus(t, b.doT(t, "POST", "/api/v1/labels/"+id+"/refund", b.token, nil), http.StatusAccepted)
	if s := getLabel(t, b, b.token, id); s.Status != "void_requested" && s.Status != "voided" {
		t.Fatalf("read right after the refund: status %s, want void_requested or voided", s.Status)
	}
	s := waitForStatus(t, b, b.token, id, "voided")
	if s.VoidedAt == nil {
		t.Error("voided label without voidedAt")
	}

	// Another account's token still finds nothing, kept answer or not.
	_, other := b.newToken(b.newAccount("Other", true).ID, "test", allScopes...)
	wantError(t, b.doT(t, "GET", "/api/v1/labels/"+id, other, nil), http.StatusNotFound, "not_found")
}
