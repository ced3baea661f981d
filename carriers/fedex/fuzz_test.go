package fedex

import (
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"testing"

	"github.com/shipd-dev/shipd/carriers"
)

// Seeds shared by the fuzzers: broken bodies of every kind.
var brokenSeeds = []string{
	``, `{`, `null`, `[]`, `"text"`, `{"output":null}`, `{"output":[]}`, `<html><body>502 Bad Gateway</body></html>`,
	`{"transactionId":"1","errors":[{"code":"INTERNAL.SERVER.ERROR","message":"We encountered an unexpected error."}]}`,
	`{"output": nope}`,
}

// checkFailed asserts that a parser error is a *carriers.Error of kind
// ErrFailed or ErrRejected, never anything else.
func checkFailed(t *testing.T, err error) {
	t.Helper()
	var ce *carriers.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *carriers.Error", err, err)
	}
	if !errors.Is(err, carriers.ErrFailed) && !errors.Is(err, carriers.ErrRejected) {
		t.Fatalf("error %v is neither ErrFailed nor ErrRejected", err)
	}
}

func FuzzParseRate(f *testing.F) {
	if doc, err := os.ReadFile("testdata/rate_reply_documented.json"); err == nil {
		f.Add(doc)
	}
	f.Add([]byte(rateBody(`12.34`, `"USD"`)))
	f.Add([]byte(rateBody(`"12.345"`, `"USD"`)))
	f.Add([]byte(rateBody(`1e400`, `"USD"`)))
	f.Add([]byte(rateBody(`-0.01`, `"EUR"`)))
	f.Add([]byte(`{"output":{"rateReplyDetails":[{"serviceType":"FEDEX_GROUND","ratedShipmentDetails":[],"operationalDetail":"x","commit":7}]}}`))
	f.Add([]byte(`{"output":{"rateReplyDetails":[{"serviceType":"FEDEX_GROUND","operationalDetail":{"transitTime":["TWO_DAYS"]},"ratedShipmentDetails":[{"rateType":"ACCOUNT","totalNetCharge":1,"shipmentRateDetail":{"currency":"USD"}}]}]}}`))
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		rates, err := parseRateResponse(body, true)
		if err != nil {
			checkFailed(t, err)
			return
		}
		for _, r := range rates {
			if r.Carrier != Name || r.Service == "" || r.CarrierRateCents < 0 || len(r.Currency) != 3 || r.EstimatedDays < 1 {
				t.Fatalf("implausible rate %+v", r)
			}
		}
	})
}

func FuzzParseShip(f *testing.F) {
	pdf := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%%EOF"))
	f.Add([]byte(`{"transactionId":"624deea6","output":{"transactionShipments":[{"masterTrackingNumber":"794953535000","pieceResponses":[{"trackingNumber":"794953535000","packageDocuments":[{"contentType":"LABEL","copiesToPrint":1,"docType":"PDF","encodedLabel":"` + pdf + `"}]}]}]}}`))
	f.Add([]byte(`{"output":{"transactionShipments":[{"masterTrackingNumber":"1","pieceResponses":[{"trackingNumber":"2","packageDocuments":[{"encodedLabel":"` + pdf + `"}]}]}]}}`))
	f.Add([]byte(`{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"794953535000","packageDocuments":[{"contentType":"LABEL","url":"https://x"}]}]}]}}`))
	f.Add([]byte(`{"output":{"transactionShipments":[{"pieceResponses":[{"trackingNumber":"7","packageDocuments":[{"encodedLabel":"!!"}]}]}]}}`))
	f.Add([]byte(`{"output":{"transactionShipments":[{"pieceResponses":[]}]}}`))
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		label, err := parseShipResponse(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		if label.TrackingNumber == "" || !bytes.HasPrefix(label.Document, []byte("%PDF")) || label.CarrierShipmentID == label.TrackingNumber {
			t.Fatalf("implausible label %q / %q with %d bytes", label.TrackingNumber, label.CarrierShipmentID, len(label.Document))
		}
	})
}

func FuzzParseCancel(f *testing.F) {
	f.Add([]byte(`{"transactionId":"624deea6","output":{"cancelledShipment":true,"cancelledHistory":true,"message":"Shipment is successfully cancelled"}}`))
	f.Add([]byte(`{"output":{"cancelledShipment":false,"message":"Shipment not found","alerts":[{"code":"X","alertType":"WARNING","message":"m"}]}}`))
	f.Add([]byte(`{"output":{"cancelledShipment":"true"}}`))
	f.Add([]byte(`{"output":{"alerts":null}}`))
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		st, err := parseCancelResponse(body)
		if err != nil {
			checkFailed(t, err)
			return
		}
		if st != carriers.VoidConfirmed {
			t.Fatalf("status %q without an error", st)
		}
	})
}

func FuzzParseTrack(f *testing.F) {
	f.Add([]byte(`{"transactionId":"624deea6","output":{"completeTrackResults":[{"trackingNumber":"123456789012","trackResults":[{"trackingNumberInfo":{"trackingNumber":"123456789012"},"latestStatusDetail":{"code":"PU","derivedCode":"PU","description":"Picked up","scanLocation":{"city":"SEATTLE","stateOrProvinceCode":"WA","countryCode":"US"}},"dateAndTimes":[{"type":"ESTIMATED_DELIVERY","dateTime":"2007-09-27T00:00:00"}],"scanEvents":[{"date":"2018-02-02T12:01:00-07:00","eventType":"PU","eventDescription":"Picked Up","derivedStatusCode":"PU","scanLocation":{"city":"SEATTLE","stateOrProvinceCode":"WA","postalCode":"98101","countryCode":"US","countryName":"United States"}}],"estimatedDeliveryTimeWindow":{"window":{"begins":"2021-10-01T08:00:00","ends":"2021-10-15T00:00:00-06:00"}}}]}]}}`))
	f.Add([]byte(`{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"trackingNumberInfo":{"trackingNumber":"1"},"error":{"code":"TRACKING.TRACKINGNUMBER.NOTFOUND","message":"Tracking number cannot be found."}}]}]}}`))
	f.Add([]byte(`{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"error":{"code":"TRACKING.TRACKINGNUMBER.EMPTY"}}]}]}}`))
	f.Add([]byte(`{"output":{"completeTrackResults":[{"trackingNumber":"1","trackResults":[{"scanEvents":[{"date":"2019-05-07","eventType":"ZZ"},{"date":"2019-05-06T23:59:59Z","eventType":"DL","scanLocation":null}]}]}]}}`))
	f.Add([]byte(`{"output":{"completeTrackResults":[{"trackResults":[{"scanEvents":[{"date":"not a date"}]}]}]}}`))
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	valid := map[string]bool{}
	for _, s := range carriers.Statuses() {
		valid[s] = true
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		up, err := parseTrackResponse(body, "1")
		if err != nil {
			checkFailed(t, err)
			return
		}
		if !valid[up.Status] {
			t.Fatalf("status %q is not in the tracker vocabulary", up.Status)
		}
		for i, ev := range up.Events {
			if !valid[ev.Status] {
				t.Fatalf("event status %q is not in the tracker vocabulary", ev.Status)
			}
			if ev.OccurredAt.Year() < 1970 {
				t.Fatalf("event at %v", ev.OccurredAt)
			}
			if carriers.Excerpt(ev.Message) != ev.Message {
				t.Fatalf("event message %.80q is not an excerpt", ev.Message)
			}
			if i > 0 && ev.OccurredAt.Before(up.Events[i-1].OccurredAt) {
				t.Fatalf("events are not oldest first")
			}
		}
	})
}

func FuzzParseErrorBody(f *testing.F) {
	f.Add([]byte(`{"transactionId":"624deea6-b709-470c-8c39-4b5511281492","errors":[{"code":"NOT.AUTHORIZED.ERROR","message":"Access token expired. Please modify your request and try again."}]}`))
	f.Add([]byte(`{"transactionId":"624deea6","customerTransactionId":"AnyCo_order123456789","errors":[{"code":"ACCOUNTNUMBER.REGISTRATION.REQUIRED","message":"Please enter a valid 9-digit FedEx account number or register for a new FedEx account number."}]}`))
	f.Add([]byte(`{"errors":[{"code":"A"},{"message":"b","parameterList":[{"key":"k","value":"v"}]}]}`))
	f.Add([]byte(`{"errors":[{}]}`))
	for _, s := range brokenSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, msg, ok := parseErrorBody(body)
		if ok && code == "" && msg == "" {
			t.Fatal("ok without a code or a message")
		}
		if !ok && (code != "" || msg != "") {
			t.Fatalf("not ok but code %q, message %q", code, msg)
		}
		if carriers.Excerpt(code) != code || carriers.Excerpt(msg) != msg {
			t.Fatalf("code %.80q or message %.80q is not an excerpt", code, msg)
		}
	})
}
