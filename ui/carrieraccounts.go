package ui

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/carrieraccounts"
)

// The carrier accounts page: the account's own carrier contracts for live
// mode, a form per connector with the credential fields its descriptor
// lists, and per account Test connection, disable or enable, and delete.

// carrierForm is one carrier's add form.
type carrierForm struct {
	Carrier, Slug string
	Fields        []credentialInput
}

// credentialInput is one credential field of a form.
type credentialInput struct {
	// ID is the input's id: the carrier's slug and the field's flag
	// ("ups-client-id").
	ID, Name, Label string
	Secret          bool
	Required        bool
	MaxLen          int
}

// carrierForms are the forms of the carriers one can connect.
func (u *UI) carrierForms() []carrierForm {
	var forms []carrierForm
	for _, d := range u.carrierAccounts.CarrierAccountCarriers() {
		f := carrierForm{Carrier: string(d.ID), Slug: d.Slug}
		for _, field := range d.Credentials {
			max := field.MaxLen
			if max <= 0 {
				max = carriers.DefaultCredentialMaxLen
			}
			f.Fields = append(f.Fields, credentialInput{ID: d.Slug + "-" + field.Flag, Name: field.Name, Label: field.Label,
				Secret: field.Secret, Required: !field.Optional, MaxLen: max})
		}
		forms = append(forms, f)
	}
	return forms
}

type carrierAccountsPage struct {
	Accounts []carrieraccounts.CarrierAccount
	Forms    []carrierForm
	// Open is the carrier whose form was sent, kept open with its values
	// (never the secret) when it was refused.
	Open string
	Form url.Values
	// SheetOf is the carrier account whose rate sheet was refused.
	SheetOf string
	// SheetHeader is a rate sheet's header line, for the upload's hint.
	SheetHeader string
}

// maxCarrierAccountsShown: one page is enough for the handful an account has.
const maxCarrierAccountsShown = 100

func (u *UI) carrierAccountsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderCarrierAccounts(w, r, c, http.StatusOK, carrierAccountsPage{}, "")
}

func (u *UI) renderCarrierAccounts(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, page carrierAccountsPage, problem string) error {
	list, _, err := u.carrierAccounts.ListCarrierAccounts(r.Context(), c, paging.Request{Limit: maxCarrierAccountsShown})
	if err != nil {
		return err
	}
	page.Accounts, page.Forms, page.SheetHeader = list, u.carrierForms(), carriers.RateSheetHeader
	u.render(w, r, status, "carrier_accounts", view{Title: "Carrier accounts", Section: "carrier-accounts", Caller: &c, Problem: problem, Page: page})
	return nil
}

// createCarrierAccount connects the carrier account of the form sent, once
// the carrier accepted its credentials.
func (u *UI) createCarrierAccount(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	f := r.PostForm
	in := carrieraccounts.NewCarrierAccount{Carrier: f.Get("carrier"), Environment: f.Get("environment"),
		Credentials: carrieraccounts.CarrierCredentialsInput{}}
	secret := map[string]bool{}
	for _, form := range u.carrierForms() {
		if !strings.EqualFold(form.Carrier, in.Carrier) {
			continue
		}
		for _, field := range form.Fields {
			in.Credentials[field.Name] = f.Get(field.Name)
			secret[field.Name] = field.Secret
		}
	}
	if d := strings.TrimSpace(f.Get("description")); d != "" {
		in.Description = &d
	}
	_, _, err := u.carrierAccounts.CreateCarrierAccount(r.Context(), c, in)
	if msg := carrierProblem(in.Carrier, err); msg != "" {
		// The form comes back with what was typed, never a secret.
		kept := url.Values{}
		for _, k := range []string{"description", "environment"} {
			kept.Set(k, f.Get(k))
		}
		for name := range in.Credentials {
			if !secret[name] {
				kept.Set(name, f.Get(name))
			}
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
		creds *carrieraccounts.CredentialsError
		down  *shipping.CarriersError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &creds):
		return fmt.Sprintf("%s refused these credentials (%s). Check them in your %s developer account.", carrier, creds.Message, carrier)
	case errors.As(err, &down) && errors.Is(err, shipping.ErrCarrierUnreachable):
		return fmt.Sprintf("This shipd server could not reach %s's host to check the credentials (its DNS, network or TLS trust failed); nothing was saved. "+
			"This is the server's network, not a passing outage at %s: ask the operator to check its outbound access.", carrier, carrier)
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
	a, err := u.carrierAccounts.GetCarrierAccount(ctx, c, r.PathValue("id"))
	if err != nil {
		return err
	}
	err = u.carrierAccounts.CheckCarrierAccount(ctx, c, a.ID)
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
	if _, err := u.carrierAccounts.UpdateCarrierAccount(r.Context(), c, r.PathValue("id"), carrieraccounts.CarrierAccountPatch{Enabled: &enabled}); err != nil {
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
	if err := u.carrierAccounts.DeleteCarrierAccount(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=carrier-deleted")
	return nil
}

// uploadRateSheet sets a carrier account's rate sheet from the file sent,
// checked by the API's own validator; a mistake is shown with its line and
// column, and nothing is stored.
func (u *UI) uploadRateSheet(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	f, _, err := r.FormFile("sheet")
	if errors.Is(err, http.ErrMissingFile) {
		return u.renderCarrierAccounts(w, r, c, http.StatusUnprocessableEntity, carrierAccountsPage{}, "Choose a rate sheet (a CSV file) to upload.")
	}
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = u.carrierAccounts.PutRateSheet(r.Context(), c, id, f)
	var bad *carrieraccounts.RateSheetError
	if errors.As(err, &bad) {
		return u.renderCarrierAccounts(w, r, c, http.StatusUnprocessableEntity, carrierAccountsPage{SheetOf: id},
			"The rate sheet was not saved: "+strings.TrimPrefix(bad.Error(), "rate sheet ")+".")
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=rate-sheet-saved")
	return nil
}

// downloadRateSheet sends a carrier account's rate sheet as it was uploaded.
func (u *UI) downloadRateSheet(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	text, err := u.carrierAccounts.RateSheet(r.Context(), c, id)
	if errors.Is(err, carrieraccounts.ErrNoRateSheet) {
		u.renderError(w, r, &c, http.StatusNotFound, "This carrier account has no rate sheet.")
		return nil
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="rate-sheet-`+id+`.csv"`)
	_, _ = io.WriteString(w, text)
	return nil
}

func (u *UI) removeRateSheet(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	err := u.carrierAccounts.DeleteRateSheet(r.Context(), c, r.PathValue("id"))
	if errors.Is(err, carrieraccounts.ErrNoRateSheet) {
		return u.renderCarrierAccounts(w, r, c, http.StatusOK, carrierAccountsPage{}, "This carrier account has no rate sheet to remove.")
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/carrier-accounts?done=rate-sheet-removed")
	return nil
}
