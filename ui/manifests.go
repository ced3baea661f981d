package ui

import (
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/manifests"
)

// The manifests page (end of day): per carrier with a manifest step, the
// labels waiting for one and a button that makes it (POST /api/v1/manifests
// without shipmentIds), then the mode's manifests, newest first, with their
// form to download.

type manifestsPage struct {
	Groups    []manifests.ManifestGroup
	Manifests []manifests.Manifest
	First     bool
	More      bool
	Next      url.Values
	// Key makes a double-submitted form one manifest (an idempotency key).
	Key string
}

const manifestsPerPage = 25

func (u *UI) manifestsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderManifests(w, r, c, http.StatusOK, "")
}

func (u *UI) renderManifests(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, problem string) error {
	p, err := pageRequest(r, manifestsPerPage)
	if err != nil {
		return err
	}
	groups, err := u.manifests.ManifestGroups(r.Context(), c)
	if err != nil {
		return err
	}
	list, more, err := u.manifests.ListManifests(r.Context(), c, p)
	if err != nil {
		return err
	}
	page := manifestsPage{Groups: groups, Manifests: list, More: more, First: r.URL.Query().Get("after") == "", Key: rand.Text()}
	if more && len(list) > 0 {
		page.Next = nextPage(r, list[len(list)-1].ID)
	}
	u.render(w, r, status, "manifests", view{Title: "Manifests", Section: "manifests", Caller: &c, Page: page, Problem: problem})
	return nil
}

// createManifest makes a manifest of every waiting label of the carrier
// bought through one carrier account (or the server's own carrier), as
// POST /api/v1/manifests without shipmentIds does.
func (u *UI) createManifest(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	key := formKey("ui-manifest-", r.PostFormValue("key"))
	in := manifests.NewManifest{Carrier: r.PostFormValue("carrier"), IdempotencyKey: "ui-manifest-" + key, ServerCarrierOnly: true}
	if id := r.PostFormValue("carrierAccountId"); id != "" {
		in.CarrierAccountID, in.ServerCarrierOnly = &id, false
	}
	_, _, err := u.manifests.CreateManifest(r.Context(), c, in)
	var (
		input  *shipping.InputError
		listed *manifests.AlreadyManifestedError
	)
	switch {
	case errors.Is(err, manifests.ErrNothingToManifest), errors.Is(err, manifests.ErrManifestNotSupported), errors.As(err, &listed):
		return u.renderManifests(w, r, c, http.StatusUnprocessableEntity, sentence(err))
	case errors.As(err, &input):
		msgs := make([]string, len(input.Issues))
		for i, is := range input.Issues {
			msgs[i] = is.Path + " " + is.Message
		}
		return u.renderManifests(w, r, c, http.StatusUnprocessableEntity,
			sentence(errors.New(strings.Join(msgs, "; ")))+" Make the manifest of one address through the API (POST /api/v1/manifests with fromAddress).")
	case err != nil:
		return err
	}
	redirect(w, r, Prefix+"/manifests?done=manifest-created")
	return nil
}

// manifestForm downloads a manifest's form.
func (u *UI) manifestForm(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	doc, err := u.manifests.ManifestForm(r.Context(), c, id)
	switch {
	case errors.Is(err, manifests.ErrManifestPending):
		u.renderError(w, r, &c, http.StatusConflict, "The form is not ready yet: the carrier is being asked. Reload in a few seconds.")
		return nil
	case errors.Is(err, shipping.ErrLabelUnavailable):
		u.renderError(w, r, &c, http.StatusNotFound, "This manifest has no form: the carrier refused it.")
		return nil
	case err != nil:
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", `attachment; filename="manifest-`+id+`.pdf"`)
	h.Set("Content-Security-Policy", "default-src 'none'")
	_, err = w.Write(doc)
	return err
}
