package ui

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
)

// The shipments pages: the list of the mode looked at (filtered by status,
// in pages), and a shipment's detail with its tracking timeline, its label
// (previewed and downloadable) and Refund when the label may be refunded.

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
}

func (u *UI) shipmentPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.renderShipment(w, r, c, http.StatusOK, "")
}

func (u *UI) renderShipment(w http.ResponseWriter, r *http.Request, c accounts.Caller, status int, problem string) error {
	sh, err := u.shipping.Get(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	page := shipmentPage{Shipment: sh, Refundable: sh.CanRefund() == nil}
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

// labelDocument serves the label document, inline for the preview the shipment
// page frames, or as a download.
func (u *UI) labelDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	doc, err := u.shipping.LabelFile(r.Context(), c, id)
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
	// The document in the format it was bought in: a browser shows a PDF
	// or PNG, and downloads a ZPL file.
	h.Set("Content-Type", doc.Format.ContentType())
	h.Set("Content-Disposition", disposition+`; filename="label-`+id+`.`+string(doc.Format)+`"`)
	// The shipment page frames the preview; nothing else may.
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	_, _ = w.Write(doc.Data)
	return nil
}
