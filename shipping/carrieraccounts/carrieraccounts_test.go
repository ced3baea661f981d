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
	"github.com/shipd-dev/shipd/carriers/connectors"
	"github.com/shipd-dev/shipd/carriers/ups/upsfake"
	"github.com/shipd-dev/shipd/openapi"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
	"github.com/shipd-dev/shipd/shipping/shippingtest"
	"github.com/shipd-dev/shipd/store"
)

// setup is a live-mode caller whose carrier accounts' clients reach a UPS fake.
func setup(t *testing.T) (*shippingtest.Services, *carrieraccounts.Service) {
	t.Helper()
	ups := upsfake.New(t)
	factory := connectors.Catalog().Factory(carriers.FactoryOptions{URLs: map[carriers.ID]carriers.Endpoints{
		"UPS": {Production: ups.URL(), Test: ups.URL()}}})
	s := shippingtest.New(t, accounts.Live, shipping.Config{CarrierAccounts: factory})
	return s, carrieraccounts.New(s.Store, s.Shipping, s.Accounts, s.Idempotency)
}

func upsAccount(secret string) carrieraccounts.NewCarrierAccount {
	return carrieraccounts.NewCarrierAccount{Carrier: "UPS", Credentials: carrieraccounts.CarrierCredentialsInput{
		"clientId": upsfake.ClientID, "clientSecret": secret, "accountNumber": upsfake.AccountNumber}}
}

// A carrier account is connected once the carrier grants a token for its
// credentials; refused credentials store nothing; it is updated, listed,
// and deleted, after which it is found no more.
func TestCarrierAccountLife(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	ctx := context.Background()
	if _, _, err := svc.CreateCarrierAccount(ctx, s.Caller, upsAccount("not-the-secret")); !errors.Is(err, shipping.ErrCarrierCredentialsInvalid) {
		t.Fatalf("refused credentials: %v, want ErrCarrierCredentialsInvalid", err)
	}
	if page, _, err := svc.ListCarrierAccounts(ctx, s.Caller, paging.Request{Limit: 5}); err != nil || len(page) != 0 {
		t.Fatalf("after refused credentials: %v, %v; want none stored", page, err)
	}
	ca, replayed, err := svc.CreateCarrierAccount(ctx, s.Caller, upsAccount(upsfake.ClientSecret))
	if err != nil || replayed {
		t.Fatalf("connect: %v (replayed %v)", err, replayed)
	}
	if ca.Carrier != "UPS" || !ca.Enabled || ca.AccountNumber != upsfake.AccountNumber || strings.Contains(ca.ClientID, upsfake.ClientID) {
		t.Errorf("connected: %+v (the client id masked)", ca)
	}
	desc, off := "warehouse", false
	updated, err := svc.UpdateCarrierAccount(ctx, s.Caller, ca.ID, carrieraccounts.CarrierAccountPatch{SetDescription: true, Description: &desc, Enabled: &off})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Enabled || updated.Description == nil || *updated.Description != desc {
		t.Errorf("updated: %+v", updated)
	}
	if err := svc.CheckCarrierAccount(ctx, s.Caller, ca.ID); err != nil {
		t.Errorf("check with the stored credentials: %v", err)
	}
	if err := svc.DeleteCarrierAccount(ctx, s.Caller, ca.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GetCarrierAccount(ctx, s.Caller, ca.ID); !errors.Is(err, store.ErrNotFound) && !errors.Is(err, accounts.ErrNotFound) {
		t.Errorf("after delete: %v, want not found", err)
	}
}

// Carrier accounts are live mode's: a test-mode caller is refused.
func TestCarrierAccountTestMode(t *testing.T) {
	t.Parallel()
	s := shippingtest.New(t, accounts.Test, shipping.Config{})
	svc := carrieraccounts.New(s.Store, s.Shipping, s.Accounts, s.Idempotency)
	var input *shipping.InputError
	if _, _, err := svc.CreateCarrierAccount(context.Background(), s.Caller, upsAccount(upsfake.ClientSecret)); !errors.As(err, &input) {
		t.Errorf("test mode: %v, want an InputError", err)
	}
}

// The limits of carrier accounts live in the domain; openapi.yaml states
// the same for the API's door: the description's length on create and
// update, and each credential's length (the longest any carrier takes).
func TestCarrierAccountLimitsMatchContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML)
	if err != nil {
		t.Fatal(err)
	}
	maxLen := func(schema, prop string) int {
		ref := doc.Components.Schemas[schema]
		if ref == nil || ref.Value.Properties[prop] == nil || ref.Value.Properties[prop].Value.MaxLength == nil {
			t.Fatalf("openapi.yaml has no maxLength for %s.%s", schema, prop)
		}
		return int(*ref.Value.Properties[prop].Value.MaxLength)
	}
	for _, schema := range []string{"CreateCarrierAccountRequest", "UpdateCarrierAccountRequest"} {
		if got := maxLen(schema, "description"); got != carrieraccounts.MaxDescriptionLength {
			t.Errorf("%s.description maxLength %d, the domain's %d", schema, got, carrieraccounts.MaxDescriptionLength)
		}
	}
	want, got := map[string]int{}, map[string]int{}
	for _, d := range connectors.Catalog().Descriptors() {
		if !d.Live() {
			continue
		}
		for _, f := range d.Credentials {
			n := f.MaxLen
			if n <= 0 {
				n = carriers.DefaultCredentialMaxLen
			}
			want[f.Name] = max(want[f.Name], n)
			got[f.Name] = maxLen("CarrierCredentialsInput", f.Name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("credential lengths (-domain +openapi.yaml):\n%s", d)
	}
}

// A description past its limit, counted in characters, is refused at its path.
func TestCarrierAccountDescriptionLimit(t *testing.T) {
	t.Parallel()
	s, svc := setup(t)
	in := upsAccount(upsfake.ClientSecret)
	long := strings.Repeat("é", carrieraccounts.MaxDescriptionLength+1)
	in.Description = &long
	var input *shipping.InputError
	if _, _, err := svc.CreateCarrierAccount(context.Background(), s.Caller, in); !errors.As(err, &input) || input.Issues[0].Path != "description" {
		t.Errorf("a description of %d characters: %v, want an issue at description", carrieraccounts.MaxDescriptionLength+1, err)
	}
	atLimit := strings.Repeat("é", carrieraccounts.MaxDescriptionLength)
	in.Description = &atLimit
	if _, _, err := svc.CreateCarrierAccount(context.Background(), s.Caller, in); err != nil {
		t.Errorf("a description at the limit: %v", err)
	}
}
