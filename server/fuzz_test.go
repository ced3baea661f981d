package server_test

// Fuzz targets of the HTTP layer: request bodies of every create operation
// and the query strings of every list, sent over real HTTP to one shipd per
// fuzz worker. Whatever arrives, the answer comes (within fuzzClientTimeout),
// is never a 500, has a status the contract declares for the operation, and
// every 4xx is the contract's JSON error. Run one with
//
//	go test -run '^$' -fuzz '^FuzzCreateRequests$' -fuzztime 20s ./server/
//
// (make fuzz runs every target of the repository). Failing inputs land in
// testdata/fuzz/<target>/ and then run with every go test.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/shipd-dev/shipd/app"
	"github.com/shipd-dev/shipd/openapi"
)

// fuzzClientTimeout bounds every exchange: a request without an answer by
// then is a hang (issue 17 #1 burned minutes on one body), not slowness.
const fuzzClientTimeout = 5 * time.Second

// fuzzOp is one operation the fuzz targets call: the contract's path (to
// look its statuses up) and the concrete path sent.
type fuzzOp struct {
	method, template, path string
}

// fuzzBundle is the shipd one fuzz worker sends to.
type fuzzBundle struct {
	*bundle
	client   *http.Client
	statuses map[string]map[int]bool // "POST /labels/quote" → statuses the contract declares
}

// fuzzSetup starts the shipd of a fuzz worker: no rate limits, no bound on
// the purchase backlog (accepted creates pile up faster than any load test
// sends them; the bound's 503 is tested in backpressure_test.go) and no
// tracking scans, so the only work is the fuzzer's requests.
func fuzzSetup(f *testing.F) *fuzzBundle {
	f.Helper()
	b := setup(f, withoutRateLimits(), withSandbox(time.Hour), func(c *app.Config) { c.MaxPurchaseBacklog = -1 })
	client := *b.http.Client()
	client.Timeout = fuzzClientTimeout
	return &fuzzBundle{bundle: b, client: &client, statuses: declaredStatuses(f)}
}

// declaredStatuses reads every operation's responses from the contract.
func declaredStatuses(tb testing.TB) map[string]map[int]bool {
	tb.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]map[int]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			codes := map[int]bool{}
			for code := range op.Responses.Map() {
				if n, err := strconv.Atoi(code); err == nil {
					codes[n] = true
				}
			}
			out[method+" "+path] = codes
		}
	}
	return out
}

// designed5xx are the 5xx answers the contract gives on purpose, each only
// when the request asks for it with a sandbox trigger (README, "Sandbox
// triggers"): code → the trigger, matched case-insensitively in the body.
var designed5xx = map[string]string{
	"carrier_error":        "carrier error",
	"carrier_unavailable":  "carriers down",
	"verifier_error":       "verifier error",
	"verifier_unavailable": "verifier down",
}

// exchange sends one request and checks the properties every answer has.
func (fb *fuzzBundle) exchange(t *testing.T, op fuzzOp, rawQuery string, body []byte) {
	t.Helper()
	target := fb.http.URL + op.path
	if rawQuery != "" {
		target += "?" + rawQuery
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(op.method, target, rd)
	if err != nil {
		t.Fatalf("%s %s: %v", op.method, target, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+fb.token)
	res, err := fb.client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%s %s (%d-byte body): no answer within %s (a hang)", op.method, op.path, len(body), fuzzClientTimeout)
		}
		t.Fatalf("%s %s (%d-byte body): %v", op.method, op.path, len(body), err)
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%s %s (%d-byte body): the response body did not arrive within %s (a hang)", op.method, op.path, len(body), fuzzClientTimeout)
		}
		t.Fatalf("%s %s: reading the response: %v", op.method, op.path, err)
	}
	status := res.StatusCode
	what := fmt.Sprintf("%s %s", op.method, op.path)
	if rawQuery != "" {
		what += fmt.Sprintf(" with query %.300q", rawQuery)
	}
	if body != nil {
		what += fmt.Sprintf(" with %d-byte body %.300q", len(body), body)
	}
	what += fmt.Sprintf(": %d %.500s", status, raw)
	if declared := fb.statuses[op.method+" "+op.template]; !declared[status] {
		t.Fatalf("status %d is not one the contract declares for %s %s\n%s", status, op.method, op.template, what)
	}
	id := res.Header.Get("X-Request-Id")
	if !requestIDPattern.MatchString(id) {
		t.Fatalf("X-Request-Id %q\n%s", id, what)
	}
	if status < 400 {
		if status != http.StatusNoContent && !json.Valid(raw) {
			t.Fatalf("a %d body that is not JSON\n%s", status, what)
		}
		return
	}
	var e struct {
		Code      string            `json:"code"`
		Error     string            `json:"error"`
		RequestID string            `json:"requestId"`
		Field     string            `json:"field"`
		Issues    []json.RawMessage `json:"issues"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" || e.Error == "" {
		t.Fatalf("an error body without code and error (%v)\n%s", err, what)
	}
	if e.RequestID != id {
		t.Fatalf("requestId %q differs from X-Request-Id %q\n%s", e.RequestID, id, what)
	}
	// The contract's Error schema: field names the field of missing_field
	// and invalid_field, issues lists every problem of invalid_request.
	if (e.Code == "missing_field" || e.Code == "invalid_field") && e.Field == "" {
		t.Fatalf("%s without field\n%s", e.Code, what)
	}
	if e.Code == "invalid_request" && len(e.Issues) == 0 {
		t.Fatalf("invalid_request without issues\n%s", what)
	}
	if status >= 500 {
		trigger, ok := designed5xx[e.Code]
		if !ok || !bytes.Contains(bytes.ToLower(body), []byte(trigger)) {
			t.Fatalf("a %d that no sandbox trigger asked for\n%s", status, what)
		}
	}
}

func jsonOf(tb testing.TB, v any) []byte {
	tb.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// repeatJoin is n copies of item joined by commas.
func repeatJoin(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// FuzzCreateRequests sends arbitrary bodies to every operation that creates
// or changes something: op picks the operation.
func FuzzCreateRequests(f *testing.F) {
	fb := fuzzSetup(f)
	hook := fb.do("POST", "/api/v1/webhooks", fb.token, map[string]any{"url": "https://example.com/fuzz", "events": []string{"*"}})
	label := fb.do("POST", "/api/v1/labels/create", fb.token, quoteBody(nil))
	var hookID, labelID struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(hook.Body, &hookID); err != nil || hook.Status != http.StatusCreated {
		f.Fatalf("create webhook: %d %s", hook.Status, hook.Body)
	}
	if err := json.Unmarshal(label.Body, &labelID); err != nil || label.Status != http.StatusAccepted {
		f.Fatalf("create label: %d %s", label.Status, label.Body)
	}
	ops := []fuzzOp{
		{"POST", "/labels/quote", "/api/v1/labels/quote"},
		{"POST", "/labels/create", "/api/v1/labels/create"},
		{"POST", "/addresses", "/api/v1/addresses"},
		{"POST", "/addresses/verify", "/api/v1/addresses/verify"},
		{"POST", "/webhooks", "/api/v1/webhooks"},
		{"PATCH", "/webhooks/{id}", "/api/v1/webhooks/" + hookID.ID},
		{"POST", "/labels/{id}/refund", "/api/v1/labels/" + labelID.ID + "/refund"},
	}
	const (
		quote = iota
		create
		address
		verify
		webhook
		patchWebhook
		refund
	)

	valid := map[int][]byte{
		quote:        jsonOf(f, quoteBody(nil)),
		create:       jsonOf(f, quoteBody(func(q map[string]any) { q["serviceCategory"] = "express"; q["idempotencyKey"] = "fuzz-1" })),
		address:      jsonOf(f, addressBody(func(m map[string]any) { m["phone"] = "+1 212 555 0100"; m["residential"] = true })),
		verify:       jsonOf(f, validAddress()),
		webhook:      []byte(`{"url":"https://example.com/h","events":["shipment.purchased","tracker.updated"],"description":"d","enabled":true}`),
		patchWebhook: []byte(`{"enabled":false,"description":null,"events":["*"]}`),
		refund:       []byte(`{"idempotencyKey":"fuzz-refund"}`),
	}
	international := jsonOf(f, quoteBody(func(q map[string]any) {
		q["toAddress"] = map[string]any{"name": "Sherlock", "street1": "221B Baker St", "city": "London", "zip": "NW1 6XE", "country": "GB"}
		q["customs"] = map[string]any{"contentsType": "merchandise", "items": []any{
			map[string]any{"description": "T-shirt", "quantity": 2, "valueCents": 2500, "weightOz": 6, "hsTariffNumber": "6109.10", "originCountry": "US"}}}
	}))
	for op, body := range valid {
		f.Add(uint8(op), body)
	}
	f.Add(uint8(refund), []byte{})
	f.Add(uint8(quote), international)
	f.Add(uint8(create), international)

	// Hostile shapes, sent to every operation.
	hostile := []string{
		"", " ", "null", "{}", "[]", `"x"`, "1", "true", "{", `{"a":`, `{"street1":"x"} {}`, "\x00", "\xff\xfe{}",
		`{"url":"https://example.com/h","url":"http://127.0.0.1:9/x","events":["*"],"events":[]}`,            // duplicate keys
		`{"city":"A","city":"B","street1":"1 Main","zip":"1","country":"US","state":"NY","country":"GB"}`,    // duplicate keys
		`{"url":1,"events":"*","enabled":"true","description":[]}`,                                           // wrong types
		`{"fromAddress":[],"toAddress":"x","parcel":{"weightOz":"16"}}`,                                      // wrong types
		`{"street1":"\u0000","city":"\ud800","zip":"\uffff","country":"ÜS","state":"\u202e","name":"🚚📦"}`,    // unicode
		"{\"street1\":\"\xff\xfe\",\"city\":\"\xc0\xaf\",\"zip\":\"1\",\"country\":\"US\",\"state\":\"NY\"}", // invalid UTF-8
		`{"name":"` + strings.Repeat("é", 101) + `","street1":"1","city":"c","zip":"1","country":"US","state":"NY"}`,
		`{"idempotencyKey":""}`, `{"idempotencyKey":"` + strings.Repeat("k", 256) + `"}`, `{"idempotencyKey":null}`,
		`{"enabled":null,"events":null,"url":null,"signingSecret":"whsec_x"}`,
	}
	for op := range ops {
		for _, s := range hostile {
			f.Add(uint8(op), []byte(s))
		}
	}

	// NUL (U+0000) in each operation's otherwise valid body: PostgreSQL's
	// text cannot hold it, so each must be 422 before the database.
	for op, body := range valid {
		f.Add(uint8(op), bytes.Replace(body, []byte(`":"`), []byte(`":"\u0000`), 1))
		f.Add(uint8(op), bytes.Replace(body, []byte(`{"`), []byte(`{"\u0000":"x","`), 1))
	}
	f.Add(uint8(create), jsonOf(f, quoteBody(func(q map[string]any) { q["idempotencyKey"] = "k\x00" })))
	f.Add(uint8(refund), []byte(`{"idempotencyKey":"\u0000"}`))
	f.Add(uint8(patchWebhook), []byte(`{"description":"a\u0000b"}`))
	f.Add(uint8(quote), jsonOf(f, quoteBody(func(q map[string]any) { object(q, "toAddress")["city"] = "\x00" })))

	// Bytes that are not UTF-8 in each operation's otherwise valid body:
	// not JSON (400), never stored as U+FFFD nor sent to PostgreSQL.
	for op, body := range valid {
		for _, bad := range []string{"\xff", "\xc0\x80", "\xed\xa0\x80"} {
			f.Add(uint8(op), bytes.Replace(body, []byte(`":"`), []byte(`":"`+bad), 1))
		}
	}

	// Numbers out of range, where numbers are taken.
	for _, n := range []string{"0", "-0", "-1", "1e309", "-1e309", "1e-400", "99999999999999999999", "9223372036854775808", "1.5", "NaN", "0x10"} {
		f.Add(uint8(quote), []byte(`{"fromAddress":{"street1":"1 Market St","city":"SF","state":"CA","zip":"94105","country":"US"},"toAddress":{"street1":"1 Main","city":"NY","state":"NY","zip":"10118","country":"US"},"parcel":{"weightOz":`+n+`,"lengthIn":`+n+`}}`))
		f.Add(uint8(create), []byte(`{"fromAddress":{"street1":"1 Market St","city":"SF","state":"CA","zip":"94105","country":"US"},"toAddress":{"street1":"10 Downing St","city":"London","zip":"SW1A 2AA","country":"GB"},"parcel":{"weightOz":16},"customs":{"contentsType":"gift","items":[{"description":"x","quantity":`+n+`,"valueCents":`+n+`,"weightOz":`+n+`}]}}`))
	}

	// Deep nesting: past encoding/json's depth limit, and just within it.
	for _, depth := range []int{9_000, 200_000} {
		arrays := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		objects := strings.Repeat(`{"a":`, depth/5) + "1" + strings.Repeat("}", depth/5)
		f.Add(uint8(webhook), []byte(`{"url":"https://example.com/h","events":`+arrays+`}`))
		f.Add(uint8(quote), []byte(`{"options":`+objects+`}`))
	}

	// Huge arrays within the 1 MiB body limit (issue 17 #1).
	events := `{"url":"http://127.0.0.1:9/x","events":[` + repeatJoin("1", 100_000) + `]}`
	f.Add(uint8(webhook), []byte(events))
	f.Add(uint8(patchWebhook), []byte(events))
	f.Add(uint8(webhook), []byte(`{"url":"https://example.com/h","events":[`+repeatJoin(`"shipment.purchased"`, 40_000)+`]}`))
	customs := `{"fromAddress":{"street1":"1 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"},` +
		`"toAddress":{"street1":"10 Downing St","city":"London","zip":"SW1A 2AA","country":"GB"},"parcel":{"weightOz":16},` +
		`"customs":{"contentsType":"merchandise","items":[` + repeatJoin(`{"quantity":0}`, 20_000) + `]}}`
	f.Add(uint8(quote), []byte(customs))
	f.Add(uint8(create), []byte(customs))

	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		fb.exchange(t, ops[int(op)%len(ops)], "", body)
	})
}

// FuzzListQueries sends arbitrary query strings to every list.
func FuzzListQueries(f *testing.F) {
	fb := fuzzSetup(f)
	// Something in every list, so cursors can point somewhere.
	for i := range 3 {
		if r := fb.do("POST", "/api/v1/addresses", fb.token, validAddress()); r.Status != http.StatusCreated {
			f.Fatalf("create address: %d %s", r.Status, r.Body)
		}
		if r := fb.do("POST", "/api/v1/labels/create", fb.token, quoteBody(nil)); r.Status != http.StatusAccepted {
			f.Fatalf("create label: %d %s", r.Status, r.Body)
		}
		body := map[string]any{"url": fmt.Sprintf("https://example.com/fuzz/%d", i), "events": []string{"*"}}
		if r := fb.do("POST", "/api/v1/webhooks", fb.token, body); r.Status != http.StatusCreated {
			f.Fatalf("create webhook: %d %s", r.Status, r.Body)
		}
	}
	var hooks webhookList
	if err := json.Unmarshal(fb.do("GET", "/api/v1/webhooks", fb.token, nil).Body, &hooks); err != nil || len(hooks.Data) == 0 {
		f.Fatalf("list webhooks: %v, %d listed", err, len(hooks.Data))
	}
	hookID := hooks.Data[0].ID
	if r := fb.do("POST", "/api/v1/webhooks/"+hookID+"/test", fb.token, nil); r.Status != http.StatusAccepted {
		f.Fatalf("test webhook: %d %s", r.Status, r.Body)
	}
	ops := []fuzzOp{
		{"GET", "/labels", "/api/v1/labels"},
		{"GET", "/events", "/api/v1/events"},
		{"GET", "/addresses", "/api/v1/addresses"},
		{"GET", "/webhooks", "/api/v1/webhooks"},
		{"GET", "/webhooks/{id}/deliveries", "/api/v1/webhooks/" + hookID + "/deliveries"},
	}
	random := base64.RawURLEncoding.EncodeToString([]byte("\x8a\x01\xfe\x00v1:whk_\xff"))
	seeds := []string{
		"", "limit=1", "limit=100", "limit=1&limit=100", "status=a&status=b", "status=paying", "status=PAYING",
		"cursor=%zz", "cursor=%", "cursor=", "limit=-1", "limit=0", "limit=101", "limit=1.5", "limit=1e2", "limit=",
		"limit=99999999999999999999", "limit=9223372036854775808", "limit=%00", "cursor=" + random,
		"cursor=" + base64.RawURLEncoding.EncodeToString([]byte("v1:")), "cursor=" + base64.StdEncoding.EncodeToString([]byte("v1:shp_1")),
		"cursor=" + base64.RawURLEncoding.EncodeToString([]byte("v1:"+strings.Repeat("x", 140))),
		"cursor=" + strings.Repeat("A", 201), "type=" + strings.Repeat("t", 65), "type=" + strings.Repeat("t", 10_000),
		"type=shipment.purchased&type=tracker.updated", "type=%E2%80%AE", "type=\u00e9", "unknown=1", "&&&", "=", ";",
		"limit=1;limit=2", "cursor[]=x", "limit[0]=1",
		"type=%00", "type=shipment.purchased%00", "status=%00", "cursor=%00", "cursor=abc%00def", "%00=1", "limit=1%00",
		// Bytes that are not UTF-8, which PostgreSQL refuses in text.
		"type=%ff", "type=%c0%80", "status=%ed%a0%80", "cursor=%ff", "cursor=abc%c0%80", "%ff=1", "limit=1%ff", "=%ff",
	}
	for op := range ops {
		for _, q := range seeds {
			f.Add(uint8(op), q)
		}
	}
	f.Fuzz(func(t *testing.T, path uint8, rawQuery string) {
		op := ops[int(path)%len(ops)]
		u, err := url.Parse(fb.http.URL + op.path + "?" + rawQuery)
		if err != nil || strings.ContainsAny(rawQuery, " \t") {
			// The request never reaches the server as given: net/url refuses it,
			// or a space would end the request target (a malformed request line).
			t.Skip()
		}
		fb.exchange(t, op, u.RawQuery, nil)
	})
}

// FuzzPathIDs sends arbitrary ids to every route of the contract with an
// id in its path: whatever the id (NUL, bytes that are not UTF-8, slashes,
// dots, long), the answer is one the contract declares and never a 500
// (PostgreSQL refuses NUL and bytes that are not UTF-8 in text: those are
// refused at the door as ids that name nothing).
func FuzzPathIDs(f *testing.F) {
	fb := fuzzSetup(f)
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		f.Fatal(err)
	}
	var ops []fuzzOp
	paths := doc.Paths.InMatchingOrder()
	slices.Sort(paths)
	for _, path := range paths {
		if !strings.Contains(path, "{") {
			continue
		}
		methods := slices.Sorted(maps.Keys(doc.Paths.Value(path).Operations()))
		for _, method := range methods {
			ops = append(ops, fuzzOp{method: method, template: path})
		}
	}
	for op := range ops {
		for _, id := range []string{
			"shp_1", "\xff", "\xc0\x80", "\xed\xa0\x80", "shp_\xff", "x\xfe\xfey", "\x00", "shp_\x00", "\xef\xbf\xbd",
			"🚚", "%", "%ff", "a b", strings.Repeat("x", 300), "whk_" + strings.Repeat("\xff", 40),
		} {
			f.Add(uint8(op), id)
		}
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	f.Fuzz(func(t *testing.T, pick uint8, id string) {
		op := ops[int(pick)%len(ops)]
		if id == "" || id == "." || id == ".." {
			// An empty segment or a dot segment is another path, not this
			// route with an odd id.
			t.Skip()
		}
		op.path = "/api/v1" + param.ReplaceAllLiteralString(op.template, url.PathEscape(id))
		var body []byte
		if op.method == http.MethodPost || op.method == http.MethodPatch {
			body = []byte(`{}`)
		}
		fb.exchange(t, op, "", body)
	})
}
