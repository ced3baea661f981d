package webhooks_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/webhooks"
)

// newDelivery builds the request shipd would send, standing in for the real
// delivery worker.
func newDelivery(url, secret string, body []byte) *http.Request {
	now := time.Now()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhooks.HeaderEvent, "shipment.purchased")
	req.Header.Set(webhooks.HeaderEventID, "evt_123")
	req.Header.Set(webhooks.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(webhooks.HeaderSignature, webhooks.Sign(secret, now, body))
	return req
}

// A receiver reads the raw body, verifies it, and only then decodes the JSON.
func ExampleVerify() {
	secret := "whsec_example" // from the subscription's creation response
	body := []byte(`{"id":"evt_123","type":"shipment.purchased","data":{}}`)
	req := newDelivery("https://receiver.example/hooks", secret, body)

	raw, _ := io.ReadAll(req.Body)
	if err := webhooks.Verify(secret, req.Header, raw, webhooks.DefaultTolerance); err != nil {
		fmt.Println("rejected:", err)
		return
	}
	fmt.Println("verified", req.Header.Get(webhooks.HeaderEventID))

	// Anything altered in transit fails.
	tampered := bytes.Replace(raw, []byte("evt_123"), []byte("evt_999"), 1)
	err := webhooks.Verify(secret, req.Header, tampered, webhooks.DefaultTolerance)
	fmt.Println(errors.Is(err, webhooks.ErrSignatureMismatch))

	// Output:
	// verified evt_123
	// true
}

// Handler wraps a receiver so it only ever sees authentic deliveries.
func ExampleHandler() {
	secret := "whsec_example"
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // already verified, and readable again
		fmt.Printf("%s %s\n", r.Header.Get(webhooks.HeaderEvent), body)
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(webhooks.Handler(secret, receiver))
	defer srv.Close()

	body := []byte(`{"id":"evt_123"}`)
	for _, signWith := range []string{secret, "whsec_wrong"} {
		resp, err := http.DefaultClient.Do(newDelivery(srv.URL, signWith, body))
		if err != nil {
			fmt.Println(err)
			return
		}
		reason, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%d %s", resp.StatusCode, reason)))
	}

	// Output:
	// shipment.purchased {"id":"evt_123"}
	// 204
	// 400 webhooks: signature mismatch
}
