package ui_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A return label made from a shipment's page: one per form sent, shown with
// a Return badge in the list and on its page, which links to the original.
func TestCreateReturnLabelFromTheShipmentPage(t *testing.T) {
	t.Parallel()
	b := setup(t, withScanInterval(time.Hour))
	id := b.buyLabel(b.token)
	br := b.browser()
	br.signIn(b.email)

	detail := br.get("/settings/shipments/" + id)
	must(t, "detail", detail, http.StatusOK, ">Create return label</button>")
	key := regexp.MustCompile(`name="key" value="([^"]+)"`).FindStringSubmatch(detail.body)
	if key == nil {
		t.Fatalf("the return form has no key:\n%s", detail.body)
	}
	form := url.Values{"key": {key[1]}}
	p := br.post("/settings/shipments/"+id+"/return", form)
	loc := regexp.MustCompile(`^/settings/shipments/(shp_[0-9a-f]{24})\?done=return-created$`).FindStringSubmatch(p.location())
	if p.status != http.StatusSeeOther || loc == nil {
		t.Fatalf("create return: %d → %q\n%s", p.status, p.location(), p.body)
	}
	ret := loc[1]
	// The same form sent again makes no second label.
	if again := br.post("/settings/shipments/"+id+"/return", form); again.location() != p.location() {
		t.Errorf("the form sent twice: %q, then %q", p.location(), again.location())
	}

	page := br.get("/settings/shipments/" + ret)
	must(t, "return page", page, http.StatusOK, "status-return", `href="/settings/shipments/`+id+`"`, "paid on use", "Ada Lovelace")
	if strings.Contains(page.body, ">Create return label</button>") {
		t.Error("a return label offers to be returned")
	}
	must(t, "list", br.get("/settings/shipments"), http.StatusOK, ret, "status-return")
	if n := strings.Count(br.get("/settings/shipments").body, "status-return"); n != 1 {
		t.Errorf("%d Return badges in the list, want 1", n)
	}
	must(t, "return of a return", br.post("/settings/shipments/"+ret+"/return", url.Values{"key": {"other"}}),
		http.StatusUnprocessableEntity, "cannot itself be returned")
}
