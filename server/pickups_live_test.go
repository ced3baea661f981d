package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers/fedex/fedexfake"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

// livePickup schedules a live pickup with carrier, checks its answer and
// returns it.
func livePickup(t *testing.T, b *bundle, live, carrier string, mods ...func(m map[string]any)) pickupDoc {
	t.Helper()
	r := b.doT(t, "POST", "/api/v1/pickups", live, pickupBody(pickupDay(b.clock.Now()), append([]func(m map[string]any){withField("carrier", carrier)}, mods...)...))
	wantStatus(t, r, http.StatusCreated)
	var p pickupDoc
	r.Decode(t, &p)
	if p.Mode != "live" || p.Status != "scheduled" || p.ConfirmationNumber == nil || *p.ConfirmationNumber == "" {
		t.Fatalf("live %s pickup: %+v", carrier, p)
	}
	return p
}

func TestLivePickupUSPS(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	day := pickupDay(b.clock.Now())
	p := livePickup(t, b, live, "USPS", withField("instructions", "Side door"), withField("packageCount", 3), withField("totalWeightOz", 40))

	sent, cancelled, ok := f.usps.Pickup(*p.ConfirmationNumber)
	if !ok || cancelled {
		t.Fatalf("the fake has no open pickup %s", *p.ConfirmationNumber)
	}
	var got map[string]any
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"pickupDate": day.Format("2006-01-02"),
		"pickupAddress": map[string]any{"firstName": "Ada", "lastName": "Lovelace",
			"address": map[string]any{"streetAddress": "350 Fifth Avenue", "city": "New York", "state": "NY", "ZIPCode": "10118"},
			"contact": []any{map[string]any{"cellNumber": "2125550100"}}},
		"packages":        []any{map[string]any{"packageType": "OTHER", "packageCount": float64(3)}},
		"estimatedWeight": float64(3),
		"pickupLocation":  map[string]any{"packageLocation": "OTHER", "specialInstructions": "Side door"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("USPS schedule request (-want +got):\n%s", diff)
	}

	wantStatus(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if _, cancelled, _ := f.usps.Pickup(*p.ConfirmationNumber); !cancelled {
		t.Errorf("USPS was not asked to cancel %s", *p.ConfirmationNumber)
	}

	// USPS refuses an ineligible address: 422 with USPS's message.
	r := b.do("POST", "/api/v1/pickups", live, pickupBody(day, withField("address", map[string]any{
		"name": "Ada Lovelace", "phone": "212 555 0100", "street1": "1 No Pickup Lane", "city": "New York", "state": "NY", "zip": "10118", "country": "US"})))
	m := wantError(t, r, http.StatusUnprocessableEntity, "carrier_rejected")
	if !strings.Contains(m["error"].(string), "not eligible for Carrier Pickup") {
		t.Errorf("carrier_rejected without USPS's message: %v", m["error"])
	}
	// USPS down: 503 with its Retry-After.
	f.usps.FailNextWith(uspsfake.OpPickup, uspsfake.Failure{Status: http.StatusServiceUnavailable,
		Body: uspsfake.ErrorBody("3.0.0", 503, "down", "503", "down", ""), Header: http.Header{"Retry-After": {"120"}}})
	r = b.do("POST", "/api/v1/pickups", live, pickupBody(day))
	wantError(t, r, http.StatusServiceUnavailable, "carrier_unavailable")
	if r.Header.Get("Retry-After") != "120" {
		t.Errorf("Retry-After %q, want USPS's 120", r.Header.Get("Retry-After"))
	}
}

func TestLivePickupUPS(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	day := pickupDay(b.clock.Now())
	sh := createLabel(t, b, live, liveBody(withField("carrier", "UPS")))
	sh = waitForStatus(t, b, live, sh.ID, "purchased")
	p := livePickup(t, b, live, "UPS", withField("shipmentIds", []string{sh.ID}), withField("totalWeightOz", 40), withField("instructions", "Dock 4"))

	sent, cancelled, ok := f.ups.Pickup(*p.ConfirmationNumber)
	if !ok || cancelled {
		t.Fatalf("the fake has no open pickup %s", *p.ConfirmationNumber)
	}
	var got struct {
		PickupCreationRequest struct {
			Request                             map[string]any
			Shipper                             map[string]any
			PickupDateInfo                      map[string]string
			PickupAddress                       map[string]any
			PickupPiece                         []map[string]string
			TotalWeight                         map[string]string
			TrackingData                        []map[string]string
			PaymentMethod                       string
			SpecialInstruction, ReferenceNumber string
		}
	}
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatal(err)
	}
	req := got.PickupCreationRequest
	wantDate := map[string]string{"PickupDate": day.Format("20060102"), "ReadyTime": "0900", "CloseTime": "1700"}
	if diff := cmp.Diff(wantDate, req.PickupDateInfo); diff != "" {
		t.Errorf("PickupDateInfo (-want +got):\n%s", diff)
	}
	wantPiece := []map[string]string{{"ServiceCode": "003", "Quantity": "1", "DestinationCountryCode": "US", "ContainerCode": "01"}}
	if diff := cmp.Diff(wantPiece, req.PickupPiece); diff != "" {
		t.Errorf("PickupPiece (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]map[string]string{{"TrackingNumber": *sh.TrackingNumber}}, req.TrackingData); diff != "" {
		t.Errorf("TrackingData (-want +got):\n%s", diff)
	}
	if req.TotalWeight["Weight"] != "2.5" || req.PaymentMethod != "01" || req.SpecialInstruction != "Dock 4" || req.ReferenceNumber != p.ID ||
		req.PickupAddress["ContactName"] != "Ada Lovelace" || req.PickupAddress["Phone"].(map[string]any)["Number"] != "2125550100" {
		t.Errorf("UPS creation request: %s", sent)
	}

	wantStatus(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if _, cancelled, _ := f.ups.Pickup(*p.ConfirmationNumber); !cancelled {
		t.Errorf("UPS was not asked to cancel %s", *p.ConfirmationNumber)
	}
	r := b.do("POST", "/api/v1/pickups", live, pickupBody(day, withField("carrier", "UPS"), withField("address", map[string]any{
		"name": "Ada Lovelace", "phone": "907 555 0100", "street1": "1 Front St", "city": "Ketchikan", "state": "AK", "zip": "99950", "country": "US"}), inZone(t, "America/Anchorage")))
	m := wantError(t, r, http.StatusUnprocessableEntity, "carrier_rejected")
	if !strings.Contains(m["error"].(string), "does not offer pickup service") {
		t.Errorf("carrier_rejected without UPS's message: %v", m["error"])
	}
}

func TestLivePickupFedEx(t *testing.T) {
	t.Parallel()
	b, f, live := setupLive(t)
	day := pickupDay(b.clock.Now())
	p := livePickup(t, b, live, "fedex", withField("packageCount", 4), withField("totalWeightOz", 100), withField("instructions", "Ring the bell at the loading dock"))
	if p.Carrier != "FedEx" {
		t.Errorf("carrier %q, want FedEx", p.Carrier)
	}
	sent, cancelled, ok := f.fedex.Pickup(*p.ConfirmationNumber)
	if !ok || cancelled {
		t.Fatalf("the fake has no open pickup %s", *p.ConfirmationNumber)
	}
	var got map[string]any
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"associatedAccountNumber": map[string]any{"value": fedexfake.AccountNumber},
		"originDetail": map[string]any{
			"pickupLocation": map[string]any{
				"contact": map[string]any{"personName": "Ada Lovelace", "phoneNumber": "2125550100"},
				"address": map[string]any{"streetLines": []any{"350 Fifth Avenue"}, "city": "New York", "stateOrProvinceCode": "NY", "postalCode": "10118", "countryCode": "US"},
			},
			"readyDateTimestamp": day.Format("2006-01-02") + "T09:00:00", "customerCloseTime": "17:00:00",
			"pickupDateType": "FUTURE_DAY", "packageLocation": "NONE",
		},
		"totalWeight":  map[string]any{"units": "LB", "value": 6.3},
		"packageCount": float64(4), "carrierCode": "FDXG", "remarks": "Ring the bell at the loading dock", "countryRelationships": "DOMESTIC",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("FedEx create pickup request (-want +got):\n%s", diff)
	}
	wantStatus(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusOK)
	if _, cancelled, _ := f.fedex.Pickup(*p.ConfirmationNumber); !cancelled {
		t.Errorf("FedEx was not asked to cancel %s", *p.ConfirmationNumber)
	}
	// A second cancel is ours to refuse; FedEx is not asked again.
	wantError(t, b.do("POST", "/api/v1/pickups/"+p.ID+"/cancel", live, nil), http.StatusConflict, "already_cancelled")

	r := b.do("POST", "/api/v1/pickups", live, pickupBody(day, withField("carrier", "FedEx"), withField("address", map[string]any{
		"name": "Ada Lovelace", "phone": "907 555 0100", "street1": "1 Front St", "city": "Ketchikan", "state": "AK", "zip": "99950", "country": "US"}), inZone(t, "America/Anchorage")))
	m := wantError(t, r, http.StatusUnprocessableEntity, "carrier_rejected")
	if !strings.Contains(m["error"].(string), "not available for this postal code") {
		t.Errorf("carrier_rejected without FedEx's message: %v", m["error"])
	}
}
