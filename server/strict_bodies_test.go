package server_test

// Unknown request fields: every request body refuses a field the contract
// does not document, with 422 invalid_field naming its path and the closest
// documented field, instead of dropping it in silence (a misspelt
// serviceCategory used to buy the cheapest service of any speed).

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestUnknownFieldsAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	label := createLabel(t, b, b.token, labelBody())
	waitForStatus(t, b, b.token, label.ID, "purchased")
	hook := createWebhook(t, b, b.token, "https://example.com/hooks/shipd")
	hookID := hook["id"].(string)

	unknown := func(field, suggestion string) map[string]any {
		msg := field + " is not a field of this request"
		if suggestion != "" {
			msg += "; did you mean " + suggestion + "?"
		}
		return map[string]any{"code": "invalid_field", "error": msg, "field": field}
	}
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		want   map[string]any
	}{
		{name: "misspelt serviceCategory on create", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withField("serviceCatgory", "overnight")),
			want: unknown("serviceCatgory", "serviceCategory")},
		{name: "snake_case on create", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withField("service_category", "overnight")),
			want: unknown("service_category", "serviceCategory")},
		{name: "nothing close on create", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withField("colour", "blue")),
			want: unknown("colour", "")},
		// The street was sent, under the wrong name: one issue, not a second "street1 is required".
		{name: "misspelt nested street1", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(func(m map[string]any) {
				to := object(m, "toAddress")
				to["stret1"] = to["street1"]
				delete(to, "street1")
			}),
			want: unknown("toAddress.stret1", "toAddress.street1")},
		{name: "unknown field of a customs item", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withInternational(true), func(m map[string]any) {
				object(m, "customs")["items"].([]any)[0].(map[string]any)["valueCent"] = 100
			}),
			want: unknown("customs.items.0.valueCent", "customs.items.0.valueCents")},
		{name: "unknown field of customs", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withInternational(true), func(m map[string]any) { object(m, "customs")["dutyPayer"] = "sender" }),
			want: unknown("customs.dutyPayer", "")},
		{name: "unknown option", method: "POST", path: "/api/v1/labels/create",
			body: labelBody(withField("options", map[string]any{"signatureConfirmaton": true})),
			want: unknown("options.signatureConfirmaton", "options.signatureConfirmation")},
		{name: "parcel weight in snake_case on quote", method: "POST", path: "/api/v1/labels/quote",
			body: quoteBody(func(m map[string]any) { m["parcel"] = map[string]any{"weight_oz": 16} }),
			want: unknown("parcel.weight_oz", "parcel.weightOz")},
		{name: "quote", method: "POST", path: "/api/v1/labels/quote",
			body: quoteBody(func(m map[string]any) { m["deliverby"] = "2030-01-01" }),
			want: unknown("deliverby", "deliverBy")},
		{name: "refund", method: "POST", path: "/api/v1/labels/" + label.ID + "/refund",
			body: map[string]any{"idempotency_key": "refund-1"},
			want: unknown("idempotency_key", "idempotencyKey")},
		{name: "refund reason", method: "POST", path: "/api/v1/labels/" + label.ID + "/refund",
			body: map[string]any{"reason": "damaged"},
			want: unknown("reason", "")},
		{name: "verify", method: "POST", path: "/api/v1/addresses/verify",
			body: addressBody(func(m map[string]any) { m["resdential"] = true }),
			want: unknown("resdential", "residential")},
		{name: "address book", method: "POST", path: "/api/v1/addresses",
			body: addressBody(func(m map[string]any) { m["compnay"] = "Acme" }),
			want: unknown("compnay", "company")},
		{name: "create webhook", method: "POST", path: "/api/v1/webhooks",
			body: map[string]any{"url": "https://example.com/hooks/other", "events": []string{"*"}, "descripton": "orders"},
			want: unknown("descripton", "description")},
		{name: "create webhook with a secret of its own", method: "POST", path: "/api/v1/webhooks",
			body: map[string]any{"url": "https://example.com/hooks/other", "events": []string{"*"}, "secret": "s3cret"},
			want: unknown("secret", "")},
		{name: "update webhook", method: "PATCH", path: "/api/v1/webhooks/" + hookID,
			body: map[string]any{"enable": false},
			want: unknown("enable", "enabled")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := b.doT(t, tc.method, tc.path, b.token, tc.body)
			wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
			if diff := cmp.Diff(tc.want, withoutRequestID(t, r)); diff != "" {
				t.Errorf("error body (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("several unknown fields are listed together", func(t *testing.T) {
		t.Parallel()
		r := b.doT(t, "POST", "/api/v1/labels/create", b.token, labelBody(
			withField("serviceCatgory", "overnight"),
			func(m map[string]any) { object(m, "fromAddress")["zipcode"] = "10118" }))
		wantError(t, r, http.StatusUnprocessableEntity, "invalid_request")
		var body struct {
			Issues []struct{ Path, Message string } `json:"issues"`
		}
		r.Decode(t, &body)
		want := []struct{ Path, Message string }{
			{"fromAddress.zipcode", "is not a field of this request"},
			{"serviceCatgory", "is not a field of this request; did you mean serviceCategory?"},
		}
		if diff := cmp.Diff(want, body.Issues); diff != "" {
			t.Errorf("issues (-want +got):\n%s", diff)
		}
	})

	// Once every refusal is in: none of them stored or changed anything.
	t.Cleanup(func() {
		if labels := listLabels(t, b, b.token, ""); len(labels.Data) != 1 {
			t.Errorf("%d shipments stored, want only the one bought before: %v", len(labels.Data), shipmentIDs(labels.Data))
		}
		if s := getLabel(t, b, b.token, label.ID); s.Status != "purchased" {
			t.Errorf("label %s is %s after refused refunds, want purchased", label.ID, s.Status)
		}
		var addrs addressList
		b.doT(t, "GET", "/api/v1/addresses", b.token, nil).Decode(t, &addrs)
		if len(addrs.Data) != 0 {
			t.Errorf("%d addresses stored", len(addrs.Data))
		}
		var hooks webhookList
		b.doT(t, "GET", "/api/v1/webhooks", b.token, nil).Decode(t, &hooks)
		if len(hooks.Data) != 1 {
			t.Errorf("%d subscriptions, want only the one made before", len(hooks.Data))
		}
		if got := b.doT(t, "GET", "/api/v1/webhooks/"+hookID, b.token, nil).JSON(t); got["enabled"] != true {
			t.Errorf("subscription enabled = %v after a refused update", got["enabled"])
		}
	})
}

// An idempotent create refused for an unknown field records nothing under
// its key: the same key with the field corrected buys the label, and the
// misspelt body sent again is refused again, not replayed or called a
// collision.
func TestUnknownFieldInAnIdempotentCreate(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	typo := labelBody(withField("idempotencyKey", "order-7"), withField("serviceCatgory", "overnight"))
	fixed := labelBody(withField("idempotencyKey", "order-7"), withField("serviceCategory", "overnight"))

	r := b.do("POST", "/api/v1/labels/create", b.token, typo)
	m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
	if m["field"] != "serviceCatgory" {
		t.Fatalf("field = %v, want serviceCatgory", m["field"])
	}
	s := createLabel(t, b, b.token, fixed)
	if s.ServiceCategory != "overnight" {
		t.Errorf("serviceCategory = %s, want overnight", s.ServiceCategory)
	}
	r = b.do("POST", "/api/v1/labels/create", b.token, typo)
	wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
	if got := r.Header.Get("Idempotent-Replayed"); got != "" {
		t.Errorf("Idempotent-Replayed = %q on a refused body", got)
	}
	if labels := listLabels(t, b, b.token, ""); len(labels.Data) != 1 {
		t.Errorf("%d shipments, want 1", len(labels.Data))
	}
}

// Every documented field of every request body is still accepted.
func TestDocumentedBodiesStillPass(t *testing.T) {
	t.Parallel()
	b := setup(t, withoutRateLimits())
	fullAddress := func(name string) map[string]any {
		return map[string]any{"name": name, "company": "Analytical Engines Ltd", "street1": "350 Fifth Avenue", "street2": "Suite 3300",
			"city": "New York", "state": "NY", "zip": "10118", "country": "US", "phone": "+1 212 555 0100", "email": "ada@example.com", "residential": false}
	}
	body := labelBody(withInternational(true), func(m map[string]any) {
		m["fromAddress"] = fullAddress("Ada Lovelace")
		object(m, "toAddress")["company"] = "Maple Ltd"
		m["parcel"] = map[string]any{"lengthIn": 10, "widthIn": 8, "heightIn": 4, "weightOz": 32}
		m["options"] = map[string]any{"signatureConfirmation": true}
		m["deliverBy"] = time.Now().UTC().AddDate(0, 0, 60).Format(time.DateOnly)
	})
	rates := quoteRates(t, b, b.token, body)
	if len(rates) == 0 {
		t.Fatal("no rates")
	}
	body["serviceCategory"] = rates[0].ServiceCategory
	body["carrier"], body["service"] = rates[0].Carrier, rates[0].Service
	body["idempotencyKey"] = "order-full"
	label := createLabel(t, b, b.token, body)
	waitForStatus(t, b, b.token, label.ID, "purchased")
	wantStatus(t, b.do("POST", "/api/v1/labels/"+label.ID+"/refund", b.token, map[string]any{"idempotencyKey": "refund-full"}), http.StatusAccepted)

	wantStatus(t, b.do("POST", "/api/v1/addresses/verify", b.token, fullAddress("Ada Lovelace")), http.StatusCreated)
	saved := fullAddress("Ada Lovelace")
	saved["idempotencyKey"] = "address-full"
	wantStatus(t, b.do("POST", "/api/v1/addresses", b.token, saved), http.StatusCreated)

	r := b.do("POST", "/api/v1/webhooks", b.token, map[string]any{"url": "https://example.com/hooks/full", "events": []string{"shipment.purchased"},
		"description": "orders", "enabled": true, "idempotencyKey": "hook-full"})
	wantStatus(t, r, http.StatusCreated)
	hookID := r.JSON(t)["id"].(string)
	wantStatus(t, b.do("PATCH", "/api/v1/webhooks/"+hookID, b.token, map[string]any{"enabled": false, "description": nil, "events": []string{"*"}}), http.StatusOK)
}
