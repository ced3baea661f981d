package ui

import (
	"crypto/rand"
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
)

// The shipments pages: the list of the mode looked at (filtered by status,
// in pages), and a shipment's detail with its tracking timeline, its label
// (previewed and downloadable), Refund when the label may be refunded, and
// Create return label for a purchased outbound label.

type shipmentsPage struct {
	Shipments []shipping.Shipment
	Statuses  []shipping.Status
	Status    string
	// First is whether this is the first page (no "First page" link then).
	First bool
	More  bool
	Next  url.Values
	// FirstPage is the query of the first page with the same filter.
	FirstPage url.Values
}

const shipmentsPerPage = 25

func (u *UI) shipmentsPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	q := r.URL.Query()
	page := shipmentsPage{Statuses: shipping.Statuses(), Status: q.Get("status"), First: q.Get("after") == ""}
	problem := ""
	if page.Status != "" && !slices.Contains(page.Statuses, shipping.Status(page.Status)) {
		problem, page.Status = "There is no status "+page.Status+"; showing every status.", ""
	}
	p, err := pageRequest(r, shipmentsPerPage)
	if err != nil {
		return err
	}
	list, more, err := u.shipping.List(r.Context(), c, shipping.Status(page.Status), p)
	if err != nil {
		return err
	}
	page.Shipments, page.More = list, more
	if more && len(list) > 0 {
		page.Next = nextPage(r, list[len(list)-1].ID)
	}
	page.FirstPage = url.Values{}
	if page.Status != "" {
		page.FirstPage.Set("status", page.Status)
	}
	u.render(w, r, http.StatusOK, "shipments", view{Title: "Shipments", Section: "shipments", Caller: &c, Problem: problem, Page: page})
	return nil
}

type shipmentPage struct {
	Shipment shipping.Shipment
	// Refundable: the label may be refunded now (shipping.Shipment.CanRefund).
	Refundable bool
	// Returnable: a return label can be made of it (shipping.Shipment.CanReturn).
	Returnable bool
	// ReturnKey is the idempotency key of this page's return form: a form
	// sent twice (a double click, a reload) makes one return label.
	ReturnKey string
}

func (u *UI) shipmentPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderShipment(w, r, c, http.StatusOK, "")
}

func (u *UI) renderShipment(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, problem string) error {
	sh, err := u.shipping.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	page := shipmentPage{Shipment: sh, Refundable: sh.CanRefund() == nil, Returnable: sh.CanReturn(), ReturnKey: rand.Text()}
	u.render(w, r, status, "shipment", view{Title: "Shipment " + sh.ID, Section: "shipments", Caller: &c, Problem: problem, Page: page})
	return nil
}

// refund asks for the label's void.
func (u *UI) refund(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	_, _, err := u.shipping.Refund(r.Context(), c, id, shipping.RefundRequest{})
	var conflict *shipping.RefundConflictError
	if errors.As(err, &conflict) {
		return u.renderShipment(w, r, c, http.StatusConflict, sentence(err))
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/shipments/"+url.PathEscape(id)+"?done=refund-requested")
	return nil
}

// createReturn buys a return label of the shipment, as POST /labels/create
// with returnOf does, and shows the new label.
func (u *UI) createReturn(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	key := formKey("ui-return-", r.PostFormValue("key"))
	ret, _, err := u.shipping.Create(r.Context(), c, shipping.NewLabel{Return: shipping.Return{Of: &id}, IdempotencyKey: "ui-return-" + key})
	if problem, status, ok := returnProblem(err); ok {
		return u.renderShipment(w, r, c, status, problem)
	}
	if err != nil {
		return err
	}
	redirect(w, r, Prefix+"/shipments/"+url.PathEscape(ret.ID)+"?done=return-created")
	return nil
}

// returnProblem is the page's message for an error a return can meet that
// the user can act on; false for the others.
func returnProblem(err error) (string, int, bool) {
	var (
		input   *shipping.InputError
		noMatch *shipping.NoMatchingServiceError
		carrier *shipping.CarriersError
	)
	switch {
	case err == nil:
		return "", 0, false
	case errors.Is(err, shipping.ErrReturnNotPurchased):
		return "Only a purchased label can be returned.", http.StatusConflict, true
	case errors.Is(err, shipping.ErrNoPaymentMethod):
		return "Add a payment method before buying a return label: it is charged when the customer uses it.", http.StatusPaymentRequired, true
	case errors.As(err, &input), errors.As(err, &noMatch), errors.Is(err, shipping.ErrNoRates), errors.Is(err, shipping.ErrCarrierNotConfigured):
		return sentence(err), http.StatusUnprocessableEntity, true
	case errors.As(err, &carrier):
		return sentence(err), http.StatusBadGateway, true
	}
	return "", 0, false
}

// labelDocument serves the label document, inline for the preview the shipment
// page frames, or as a download.
func (u *UI) labelDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	doc, err := u.shipping.LabelFile(r.Context(), c, id)
	// The document in the format it was bought in: a browser shows a PDF
	// or PNG, and downloads a ZPL file.
	return u.serveDocument(w, r, c, err, doc.Data, doc.Format.ContentType(), "label-"+id+"."+string(doc.Format))
}

// serveDocument answers a shipment's document (the label, its customs
// invoice), or the page saying why there is none yet.
func (u *UI) serveDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller, err error, data []byte, contentType, filename string) error {
	switch {
	case errors.Is(err, shipping.ErrLabelPending):
		u.renderError(w, r, &c, http.StatusConflict, "The label is not ready yet: the purchase is under way. Reload in a few seconds.")
		return nil
	case errors.Is(err, shipping.ErrLabelUnavailable):
		u.renderError(w, r, &c, http.StatusNotFound, "This shipment has no label document.")
		return nil
	case err != nil:
		return err
	}
	disposition := "inline"
	if r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", disposition+`; filename="`+filename+`"`)
	// The shipment page frames the preview; nothing else may.
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	_, _ = w.Write(data)
	return nil
}
