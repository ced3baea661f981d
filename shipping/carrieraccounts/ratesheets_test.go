package carrieraccounts_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
)

// quote is the caller's live quote of a 1 lb parcel within the US, the
// price of each service.
func quote(t *testing.T, s *shippingtest.Services) map[string]int64 {
	t.Helper()
	ny, ca, name, phone := "NY", "CA", "Ada Lovelace", "+1 212 555 0100"
	q, err := s.Shipping.Quote(context.Background(), s.Caller, shipping.Input{
		From:   shipping.Address{Name: &name, Phone: &phone, Street1: "1 Market St", City: "San Francisco", State: &ca, Zip: "94105", Country: "US"},
		To:     shipping.Address{Name: &name, Phone: &phone, Street1: "350 Fifth Avenue", City: "New York", State: &ny, Zip: "10118", Country: "US"},
		Parcel: shipping.Parcel{WeightOz: new(16.0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range q.Rates {
		out[r.Service] = r.CarrierRateCents
	}
	return out
}

// otherCaller is a live caller of another account.
func otherCaller(t *testing.T, s *shippingtest.Services) accounts.Caller {
	t.Helper()
	ctx := context.Background()
	a, err := s.Accounts.CreateAccount(ctx, "Other", true)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, err := s.Accounts.CreateToken(ctx, accounts.NewToken{AccountID: a.ID, Mode: accounts.Live, Scopes: accounts.Scopes()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Accounts.Authenticate(ctx, secret, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A carrier account's own rate sheet prices its quotes: for a carrier with
// a rating API (UPS) the services it names take its prices and the others
// keep the carrier's. It is read back as sent, shown on the account,
// replaced (the next quote already has the new prices), and removed (the
// carrier's prices again). A sheet with a mistake is refused at its line and
// column, storing nothing; another account's carrier account is not found;
// each change is audited.
func TestCarrierAccountRateSheet(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	ca, _, err := svc.CreateCarrierAccount(ctx, s.Caller, upsAccount(upsfake.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	if ca.RateSheet != nil {
		t.Errorf("a new carrier account shows a rate sheet: %+v", ca.RateSheet)
	}
	carrierPrices := quote(t, s)
	if _, ok := carrierPrices["Ground"]; !ok || len(carrierPrices) < 2 {
		t.Fatalf("UPS quotes %v, want Ground and more", carrierPrices)
	}

	if _, err := svc.RateSheet(ctx, s.Caller, ca.ID); !errors.Is(err, carrieraccounts.ErrNoRateSheet) {
		t.Errorf("the sheet of an account without one: %v, want ErrNoRateSheet", err)
	}
	if err := svc.DeleteRateSheet(ctx, s.Caller, ca.ID); !errors.Is(err, carrieraccounts.ErrNoRateSheet) {
		t.Errorf("removing a sheet that is not there: %v, want ErrNoRateSheet", err)
	}

	const header = "service,destination,maxWeightG,price,currency\n"
	_, err = svc.PutRateSheet(ctx, s.Caller, ca.ID, strings.NewReader(header+"Ground,US,1000,4.56,USD\nGround,US,2000,5,99,USD\n"))
	var bad *carrieraccounts.RateSheetError
	if !errors.As(err, &bad) || bad.Sheet.Line != 3 || bad.Sheet.Column != 0 {
		t.Errorf("six fields on line 3: %v, want a RateSheetError at line 3", err)
	}
	_, err = svc.PutRateSheet(ctx, s.Caller, ca.ID, strings.NewReader(header+"Ground,US,1000,4.56,USD\nGround,US,2000,5.999,USD\n"))
	if !errors.As(err, &bad) || bad.Sheet.Line != 3 || bad.Sheet.Column != 4 {
		t.Errorf("three decimals on line 3: %v, want a RateSheetError at line 3, column 4", err)
	}
	if _, err := svc.RateSheet(ctx, s.Caller, ca.ID); !errors.Is(err, carrieraccounts.ErrNoRateSheet) {
		t.Errorf("after refused sheets: %v, want none stored", err)
	}

	sheet := header + "Ground,US,1000,4.56,USD\nGround,*,30000,9.99,USD\n"
	got, err := svc.PutRateSheet(ctx, s.Caller, ca.ID, strings.NewReader(sheet))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&carrieraccounts.RateSheetSummary{Rows: 2, UpdatedAt: shippingtest.Epoch}, got.RateSheet); diff != "" {
		t.Errorf("the account's rate sheet (-want +got):\n%s", diff)
	}
	if text, err := svc.RateSheet(ctx, s.Caller, ca.ID); err != nil || text != sheet {
		t.Errorf("read back: %q, %v; want it as sent", text, err)
	}
	want := map[string]int64{}
	for k, v := range carrierPrices {
		want[k] = v
	}
	want["Ground"] = 456
	if diff := cmp.Diff(want, quote(t, s)); diff != "" {
		t.Errorf("priced by the sheet (-want +got):\n%s", diff)
	}

	// Replaced: the client is built again with the new sheet.
	if _, err := svc.PutRateSheet(ctx, s.Caller, ca.ID, strings.NewReader(header+"Ground,US,1000,3.21,USD\n")); err != nil {
		t.Fatal(err)
	}
	if got := quote(t, s)["Ground"]; got != 321 {
		t.Errorf("Ground after the sheet was replaced: %d, want 321", got)
	}

	other := otherCaller(t, s)
	if _, err := svc.PutRateSheet(ctx, other, ca.ID, strings.NewReader(sheet)); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("another account's PUT: %v, want not found", err)
	}
	if _, err := svc.RateSheet(ctx, other, ca.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("another account's GET: %v, want not found", err)
	}
	if err := svc.DeleteRateSheet(ctx, other, ca.ID); !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("another account's DELETE: %v, want not found", err)
	}

	if err := svc.DeleteRateSheet(ctx, s.Caller, ca.ID); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(carrierPrices, quote(t, s)); diff != "" {
		t.Errorf("the carrier's prices again after the sheet was removed (-want +got):\n%s", diff)
	}
	if a, err := svc.GetCarrierAccount(ctx, s.Caller, ca.ID); err != nil || a.RateSheet != nil {
		t.Errorf("after removal: %+v, %v", a.RateSheet, err)
	}

	log, _, err := s.Accounts.AuditLog(ctx, s.Caller, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log[:4] {
		actions = append(actions, e.Action)
	}
	wantActions := []string{accounts.AuditCarrierAccountRateSheetRemoved, accounts.AuditCarrierAccountRateSheetSet,
		accounts.AuditCarrierAccountRateSheetSet, accounts.AuditCarrierAccountCreated}
	if diff := cmp.Diff(wantActions, actions); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
}

// Deleting a carrier account removes its rate sheet with it.
func TestCarrierAccountDeleteRemovesRateSheet(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	ca, _, err := svc.CreateCarrierAccount(ctx, s.Caller, upsAccount(upsfake.ClientSecret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PutRateSheet(ctx, s.Caller, ca.ID, strings.NewReader("service,destination,maxWeightG,price,currency\nGround,*,1000,1,USD\n")); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteCarrierAccount(ctx, s.Caller, ca.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.CarrierAccountRateSheet(ctx, s.Caller.AccountID, ca.ID); err == nil {
		t.Error("the deleted carrier account's sheet is still stored")
	}
}

// ReadRateSheet is the validator of the API and the settings pages: the
// limits are the carriers package's, a larger text is refused as such.
func TestReadRateSheetLimits(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("service,destination,maxWeightG,price,currency\n")
	// Spaces around fields are trimmed: rows padded with them reach the
	// byte limit before the row limit.
	for b.Len() <= carriers.MaxRateSheetBytes {
		b.WriteString("Ground" + strings.Repeat(" ", 300) + ",US,1000,4.56,USD\n")
	}
	_, _, err := carrieraccounts.ReadRateSheet(strings.NewReader(b.String()))
	var bad *carrieraccounts.RateSheetError
	if !errors.As(err, &bad) || !strings.Contains(bad.Error(), "exceeds") {
		t.Errorf("a sheet past %d bytes: %v", carriers.MaxRateSheetBytes, err)
	}
	text, rows, err := carrieraccounts.ReadRateSheet(strings.NewReader("service,destination,maxWeightG,price,currency\nGround,US,1000,4.56,USD\n"))
	if err != nil || rows != 1 || !strings.HasPrefix(text, "service,") {
		t.Errorf("one row: %q, %d, %v", text, rows, err)
	}
}

// The limits of a rate sheet live in the carriers package; openapi.yaml
// states them for the API's door: the PUT's body limit (x-max-body-bytes,
// 413 beyond) and the most rows an account shows.
func TestRateSheetLimitsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	put := doc.Paths.Find("/carrier-accounts/{id}/rate-sheet").Put
	if got, _ := put.Extensions["x-max-body-bytes"].(float64); int(got) != carriers.MaxRateSheetBytes {
		t.Errorf("x-max-body-bytes %v, the domain's %d", put.Extensions["x-max-body-bytes"], carriers.MaxRateSheetBytes)
	}
	rows := doc.Components.Schemas["RateSheetSummary"].Value.Properties["rows"].Value
	if rows.Max == nil || int(*rows.Max) != carriers.MaxRateSheetRows {
		t.Errorf("RateSheetSummary.rows maximum %v, the domain's %d", rows.Max, carriers.MaxRateSheetRows)
	}
}
