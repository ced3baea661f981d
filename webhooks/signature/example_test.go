package signature_test

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

	"github.com/shipd-dev/shipd/webhooks/signature"
)

// newDelivery builds the request shipd would send, standing in for the real
// delivery worker.
func newDelivery(url, secret string, body []byte) *http.Request {
	now := time.Now()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(signature.HeaderEvent, "shipment.purchased")
	req.Header.Set(signature.HeaderEventID, "evt_123")
	req.Header.Set(signature.HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(signature.HeaderSignature, signature.Sign(secret, now, body))
	return req
}

// A receiver reads the raw body, verifies it, and only then decodes the JSON.
func ExampleVerify() {
	secret := "whsec_example" // from the subscription's creation response
	body := []byte(`{"id":"evt_123","type":"shipment.purchased","data":{}}`)
	req := newDelivery("https://receiver.example/hooks", secret, body)

	raw, _ := io.ReadAll(req.Body)
	if err := signature.Verify(secret, req.Header, raw, signature.DefaultTolerance); err != nil {
		fmt.Println("rejected:", err)
		return
	}
	fmt.Println("verified", req.Header.Get(signature.HeaderEventID))

	// Anything altered in transit fails.
	tampered := bytes.Replace(raw, []byte("evt_123"), []byte("evt_999"), 1)
	err := signature.Verify(secret, req.Header, tampered, signature.DefaultTolerance)
	fmt.Println(errors.Is(err, signature.ErrSignatureMismatch))

	// Output:
	// verified evt_123
	// true
}

// Handler wraps a receiver so it only ever sees authentic deliveries.
func ExampleHandler() {
	secret := "whsec_example"
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // already verified, and readable again
		fmt.Printf("%s %s\n", r.Header.Get(signature.HeaderEvent), body)
		w.WriteHeader(http.StatusNoContent)
	})
	srv := httptest.NewServer(signature.Handler(secret, receiver))
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
	// 400 webhook signature: signature mismatch
}
