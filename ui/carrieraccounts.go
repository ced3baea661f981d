package ui

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
)

// The carrier accounts page: the account's own UPS, FedEx and USPS
// contracts for live mode, a form per carrier with the fields it needs, and
// per account Test connection, disable or enable, and delete.

// carrierForm is one carrier's add form: its name and the labels of the
// fields that carrier calls its credentials.
type carrierForm struct {
	Carrier, Slug                           string
	ClientIDLabel, SecretLabel, NumberLabel string
	// USPS also needs the CRID and MID.
	USPS bool
}

var carrierForms = []carrierForm{
	{Carrier: "UPS", Slug: "ups", ClientIDLabel: "Client ID", SecretLabel: "Client secret", NumberLabel: "Shipper number"},
	{Carrier: "FedEx", Slug: "fedex", ClientIDLabel: "API key", SecretLabel: "Secret key", NumberLabel: "Account number"},
	{Carrier: "USPS", Slug: "usps", ClientIDLabel: "Consumer key", SecretLabel: "Consumer secret", NumberLabel: "EPS account number", USPS: true},
}

type carrierAccountsPage struct {
	Accounts []shipping.CarrierAccount
	Forms    []carrierForm
	// Open is the carrier whose form was sent, kept open with its values
	// (never the secret) when it was refused.
	Open string
	Form url.Values
}

// maxCarrierAccountsShown: one page is enough for the handful an account has.
const maxCarrierAccountsShown = 100

func (u *UI) carrierAccountsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderCarrierAccounts(w, r, c, http.StatusOK, carrierAccountsPage{}, "")
}

func (u *UI) renderCarrierAccounts(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, page carrierAccountsPage, problem string) error {
	list, _, err := u.shipping.ListCarrierAccounts(r.Context(), c, paging.Request{Limit: maxCarrierAccountsShown})
	if err != nil {
		return err
	}
	page.Accounts, page.Forms = list, carrierForms
	u.render(w, r, status, "carrier_accounts", view{Title: "Carrier accounts", Section: "carrier-accounts", Caller: &c, Problem: problem, Page: page})
	return nil
}

// createCarrierAccount connects the carrier account of the form sent, once
// the carrier accepted its credentials.
func (u *UI) createCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	f := r.PostForm
	in := shipping.NewCarrierAccount{Carrier: f.Get("carrier"), Environment: f.Get("environment"),
		Credentials: shipping.CarrierCredentialsInput{ClientID: f.Get("clientId"), ClientSecret: f.Get("clientSecret"),
			AccountNumber: f.Get("accountNumber"), CRID: f.Get("crid"), MID: f.Get("mid")}}
	if d := strings.TrimSpace(f.Get("description")); d != "" {
		in.Description = &d
	}
	_, _, err := u.shipping.CreateCarrierAccount(r.Context(), c, in)
	if msg := carrierProblem(in.Carrier, err); msg != "" {
		kept := url.Values{}
		for _, k := range []string{"description", "clientId", "accountNumber", "crid", "mid", "environment"} {
			kept.Set(k, f.Get(k))
		}
		return u.renderCarrierAccounts(w, r, c, http.StatusUnprocessableEntity, carrierAccountsPage{Open: in.Carrier, Form: kept}, msg)
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=carrier-connected")
	return nil
}

// carrierProblem says what is wrong with a carrier account form or its
// credentials, "" when the error is not one the user can fix.
func carrierProblem(carrier string, err error) string {
	var (
		input *shipping.InputError
		creds *shipping.CredentialsError
		down  *shipping.CarriersError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &creds):
		return fmt.Sprintf("%s refused these credentials (%s). Check them in your %s developer account.", carrier, creds.Message, carrier)
	case errors.As(err, &down):
		return fmt.Sprintf("%s could not be reached to check the credentials; nothing was saved. Try again in a minute.", carrier)
	case errors.As(err, &input):
		var parts []string
		for _, is := range input.Issues {
			parts = append(parts, strings.TrimPrefix(is.Path, "credentials.")+" "+is.Message)
		}
		return "Check the form: " + strings.Join(parts, "; ") + "."
	case errors.Is(err, shipping.ErrCarrierAccountsUnsupported):
		return sentence(err)
	}
	return ""
}

// testCarrierAccount asks the carrier for a token with the stored credentials.
func (u *UI) testCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	ctx := r.Context()
	a, err := u.shipping.GetCarrierAccount(ctx, c, r.PathValue("id"))
	if err != nil {
		return err
	}
	err = u.shipping.CheckCarrierAccount(ctx, c, a.ID)
	if msg := carrierProblem(a.Carrier, err); msg != "" {
		return u.renderCarrierAccounts(w, r, c, http.StatusOK, carrierAccountsPage{}, msg)
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=carrier-connection-ok")
	return nil
}

func (u *UI) disableCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.setCarrierEnabled(w, r, c, false)
}

func (u *UI) enableCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.setCarrierEnabled(w, r, c, true)
}

func (u *UI) setCarrierEnabled(w http.ResponseWriter, r *http.Request, c accounts.Caller, enabled bool) error {
	if _, err := u.shipping.UpdateCarrierAccount(r.Context(), c, r.PathValue("id"), shipping.CarrierAccountPatch{Enabled: &enabled}); err != nil {
		return err
	}
	done := "carrier-disabled"
	if enabled {
		done = "carrier-enabled"
	}
	redirect(w, r, Prefix+"/carrier-accounts?done="+done)
	return nil
}

func (u *UI) deleteCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	if err := u.shipping.DeleteCarrierAccount(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=carrier-deleted")
	return nil
}
