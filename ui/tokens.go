package ui

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/accounts"
)

// The API tokens page: the tokens of the mode looked at, the form that
// creates one (its secret shown once), and revocation.

type tokensPage struct {
	Tokens []accounts.Token
	Scopes []string
	Form   tokenForm
	// Created is the token just made and its secret, shown this once.
	Created       *accounts.Token
	CreatedSecret string
}

type tokenForm struct {
	Name    string
	Scopes  []string
	Mode    accounts.Mode
	Expires string
}

func (u *UI) tokensPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderTokens(w, r, c, http.StatusOK, tokensPage{Form: tokenForm{Mode: c.Mode}}, "")
}

func (u *UI) renderTokens(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, page tokensPage, problem string) error {
	tokens, err := u.accounts.Tokens(r.Context(), c)
	if err != nil {
		return err
	}
	page.Tokens, page.Scopes = tokens, accounts.Scopes()
	u.render(w, r, status, "tokens", view{Title: "API tokens", Section: "tokens", Caller: &c, Problem: problem, Page: page})
	return nil
}

// createToken makes a token and answers with the page itself, showing the
// secret: it is never stored, not even to survive a redirect (VARIANTS.md).
func (u *UI) createToken(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	form := tokenForm{
		Name: strings.TrimSpace(r.PostFormValue("name")), Scopes: r.PostForm["scope"],
		Mode: accounts.Mode(r.PostFormValue("mode")), Expires: strings.TrimSpace(r.PostFormValue("expires")),
	}
	in := accounts.NewToken{Name: form.Name, Scopes: form.Scopes, Mode: form.Mode}
	if form.Expires != "" {
		day, err := time.Parse(time.DateOnly, form.Expires)
		if err != nil {
			return u.renderTokens(w, r, c, http.StatusUnprocessableEntity, tokensPage{Form: form}, "The expiry date is not a date (YYYY-MM-DD).")
		}
		// The token works through the whole day chosen (UTC): it ends at its last second.
		end := day.AddDate(0, 0, 1).Add(-time.Second)
		in.ExpiresAt = &end
	}
	tok, secret, err := u.accounts.CreateTokenAs(r.Context(), c, in)
	if msg := tokenProblem(err); msg != "" {
		return u.renderTokens(w, r, c, http.StatusUnprocessableEntity, tokensPage{Form: form}, msg)
	}
	if err != nil {
		return err
	}
	return u.renderTokens(w, r, c, http.StatusCreated, tokensPage{Form: tokenForm{Mode: c.Mode}, Created: &tok, CreatedSecret: secret}, "")
}

// tokenProblem says what is wrong with a token form, "" when the error is not the form's.
func tokenProblem(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, accounts.ErrNoScopes):
		return "Choose at least one scope."
	case errors.Is(err, accounts.ErrExpiryPast):
		return "The expiry date must be in the future."
	case errors.Is(err, accounts.ErrInvalidMode):
		return "The mode must be test or live."
	case errors.Is(err, accounts.ErrInvalidScope):
		return "Unknown scope: choose scopes from the list."
	case errors.Is(err, accounts.ErrTokenName):
		return sentence(err)
	}
	return ""
}

func (u *UI) revokeToken(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	if err := u.accounts.RevokeTokenAs(r.Context(), c, r.PathValue("id")); err != nil {
		return err
	}
	redirect(w, r, Prefix+"/tokens?done=token-revoked")
	return nil
}
