package gls

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	_ "image/png" // CheckLabelImage reads the header of GLS's PNG labels
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shipd-dev/shipd/carriers"
)

// ShipIT's ShipmentRequestData: the shipment and how its labels print.
type shipmentRequest struct {
	Shipment        shipment        `json:"Shipment"`
	PrintingOptions printingOptions `json:"PrintingOptions"`
}

// shipment is ShipIT's Shipment: Product, Consignee, Shipper and
// ShipmentUnit required.
type shipment struct {
	ShipmentReference []string  `json:"ShipmentReference,omitempty"`
	ShippingDate      string    `json:"ShippingDate,omitempty"`
	Product           string    `json:"Product"`
	Consignee         consignee `json:"Consignee"`
	Shipper           shipper   `json:"Shipper"`
	ShipmentUnit      []unit    `json:"ShipmentUnit"`
}

type consignee struct {
	Category string  `json:"Category,omitempty"`
	Address  address `json:"Address"`
}

type shipper struct {
	ContactID string   `json:"ContactID"`
	Address   *address `json:"Address,omitempty"`
}

// unit is ShipIT's ShipmentUnit, one parcel.
type unit struct {
	ShipmentUnitReference []string `json:"ShipmentUnitReference,omitempty"`
	Weight                float64  `json:"Weight"`
}

// createdAnswer is ShipIT's CreateParcelsResponse (and
// ReprintParcelResponse): the parcels created and their labels.
type createdAnswer struct {
	CreatedShipment *struct {
		ParcelData []struct {
			TrackID               string   `json:"TrackID"`
			ParcelNumber          string   `json:"ParcelNumber"`
			ShipmentUnitReference []string `json:"ShipmentUnitReference"`
		} `json:"ParcelData"`
		PrintData []struct {
			Data        []string `json:"Data"`
			LabelFormat string   `json:"LabelFormat"`
		} `json:"PrintData"`
	} `json:"CreatedShipment"`
}

// parcel is one parcel GLS created: its TrackID (ShipIT's key: cancel,
// reprint) and its parcel number (the label's barcode; Track And Trace's).
type parcel struct {
	trackID, number string
}

// created is a ShipIT answer read: the parcels in the order of the
// shipment's units, and the label documents (base64 decoded lazily, after
// their size is checked).
type created struct {
	parcels []parcel
	format  string
	data    []string
}

// sold is what the answer sold, without documents: the numbers a void
// needs.
func (r created) sold() carriers.Label {
	if len(r.parcels) == 0 {
		return carriers.Label{}
	}
	l := carriers.Label{TrackingNumber: r.parcels[0].number, CarrierShipmentID: joinTrackIDs(r.parcels)}
	if len(r.parcels) > 1 {
		for _, p := range r.parcels {
			l.Pieces = append(l.Pieces, p.number)
		}
	}
	return l
}

// joinTrackIDs is a label's CarrierShipmentID: the TrackIDs of its parcels
// in piece order, comma-separated (ShipIT cancels and reprints by TrackID,
// one parcel at a time, and a shipment keeps one carrier id).
func joinTrackIDs(ps []parcel) string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.trackID
	}
	return strings.Join(ids, ",")
}

// splitTrackIDs reads a CarrierShipmentID back.
func splitTrackIDs(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.ToUpper(strings.TrimSpace(id)); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// unitReference is the ShipmentUnitReference of piece i (from 0) of the
// shipment of reference: how a rescue orders the parcels it finds.
func unitReference(reference string, i int) string {
	return reference + "-" + strconv.Itoa(i+1)
}

// Buy creates the GLS parcels of the shipment (POST /rs/shipments), one
// ShipmentUnit per piece under one shipment, and returns their labels in
// the format asked.
//
// ShipIT has no idempotency key: the shipd shipment id goes as the
// ShipmentReference (and each piece's as its ShipmentUnitReference), by
// which FindPurchase finds what an attempt cut off sold.
func (c *Carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	if err := ctx.Err(); err != nil {
		return carriers.Label{}, err
	}
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, rejected(opBuy, "the purchase has no reference")
	}
	svc, ok := serviceByName(req.Rate.Service)
	if !ok {
		return carriers.Label{}, rejected(opBuy, "GLS has no service %q (Parcel, Express)", req.Rate.Service)
	}
	s := req.Shipment
	if err := c.checkPurchase(req, svc); err != nil {
		return carriers.Label{}, err
	}
	body := shipmentRequest{Shipment: c.shipmentOf(s, svc, ref), PrintingOptions: printingFor(req.Format())}
	a, err := c.do(ctx, request{op: opBuy, method: http.MethodPost, path: shipitPath + "/shipments", body: body})
	if err != nil {
		return carriers.Label{}, err
	}
	res, err := parseCreated(a.body, ref, s.PieceCount())
	if err != nil {
		// GLS answered 2xx, so it may have sold: an answer that cannot be
		// read at all is SoldUnusable's (the flow asks FindPurchase); one
		// that names its parcels says what to void.
		return carriers.Label{}, carriers.Unusable(res.sold(), malformed(opBuy, a.status, "%v", err))
	}
	label, err := labelOf(res, req.Format(), a.status)
	if err != nil {
		return carriers.Label{}, carriers.Unusable(res.sold(), err)
	}
	return label, nil
}

// checkPurchase refuses, before GLS is called, what GLS would refuse or
// shipd cannot take from it.
func (c *Carrier) checkPurchase(req carriers.BuyRequest, svc service) error {
	s := req.Shipment
	if s.Return {
		return rejected(opBuy, "GLS return labels are not offered through shipd")
	}
	// The shipping flow leaves out rates that break the table; this is the
	// defence for a purchase that reaches GLS anyway.
	if err := carriers.CheckRequirements(carrierName, requirements(), svc.name, s); err != nil {
		return err
	}
	t, sold := termsOf(svc, carriers.IsInternational(s.From, s.To))
	if !sold {
		return rejected(opBuy, "GLS %s is not sold on this route", svc.name)
	}
	if !t.fits(s) {
		return rejected(opBuy, "GLS %s takes parcels of at most %.0f kg and %.0f cm along the longest side", svc.name,
			t.maxWeightOz*carriers.GramsPerOunce/1000, t.maxLengthCm)
	}
	switch req.Size() {
	case carriers.Label4x6, carriers.LabelA6:
	default:
		return rejected(opBuy, "GLS prints its labels A6 (on 4x6 stock), not on a %s page", req.Size())
	}
	if req.Format() == carriers.LabelPNG && s.PieceCount() > 1 {
		return rejected(opBuy, "GLS answers a PNG per parcel, which make no one document: ask a PDF or ZPL label for several parcels")
	}
	return nil
}

// shipmentOf is the ShipIT Shipment of s.
func (c *Carrier) shipmentOf(s carriers.Shipment, svc service, ref string) shipment {
	from := addressOf(s.From, false)
	sh := shipment{
		ShipmentReference: []string{ref},
		Product:           svc.product,
		Consignee:         consignee{Category: categoryOf(s.To), Address: addressOf(s.To, true)},
		Shipper:           shipper{ContactID: c.contactID, Address: &from},
	}
	if !s.ShipDate.IsZero() {
		// A date-time, as the document types it: the day at midnight UTC.
		d := s.ShipDate
		sh.ShippingDate = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
	}
	for i, p := range s.AllPieces() {
		sh.ShipmentUnit = append(sh.ShipmentUnit, unit{ShipmentUnitReference: []string{unitReference(ref, i)}, Weight: kilograms(p)})
	}
	return sh
}

// categoryOf is the consignee's Category: PRIVATE for a residential
// address or one without a company, BUSINESS otherwise.
func categoryOf(a carriers.Address) string {
	if a.Residential || strings.TrimSpace(a.Company) == "" {
		return "PRIVATE"
	}
	return "BUSINESS"
}

// parseCreated reads a CreateParcelsResponse (or ReprintParcelResponse):
// want parcels, ordered by the ShipmentUnitReference of reference when
// every parcel carries one, else as answered. It returns what it read of
// the parcels even with an error, so that a void knows them.
func parseCreated(body []byte, reference string, want int) (created, error) {
	var a createdAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return created{}, fmt.Errorf("the shipment answer is not the documented JSON: %w", err)
	}
	cs := a.CreatedShipment
	if cs == nil {
		return created{}, fmt.Errorf("the shipment answer has no CreatedShipment")
	}
	var res created
	rank := map[string]int{}
	for i := range want {
		rank[unitReference(reference, i)] = i + 1
	}
	type ranked struct {
		rank int
		p    parcel
	}
	all := make([]ranked, 0, len(cs.ParcelData))
	everyRanked := true
	for _, p := range cs.ParcelData {
		number := strings.ToUpper(strings.TrimSpace(p.ParcelNumber))
		id := strings.ToUpper(strings.TrimSpace(p.TrackID))
		if number == "" || id == "" || strings.Contains(id, ",") {
			return res, fmt.Errorf("a parcel of the answer has no ParcelNumber or TrackID")
		}
		r := 0
		for _, u := range p.ShipmentUnitReference {
			if n := rank[strings.TrimSpace(u)]; n > 0 {
				r = n
			}
		}
		everyRanked = everyRanked && r > 0
		all = append(all, ranked{r, parcel{trackID: id, number: number}})
		res.parcels = append(res.parcels, parcel{trackID: id, number: number})
	}
	if everyRanked {
		slices.SortStableFunc(all, func(x, y ranked) int { return x.rank - y.rank })
		for i, r := range all {
			res.parcels[i] = r.p
		}
	}
	if len(res.parcels) != want {
		return res, fmt.Errorf("the answer has %d parcels for %d pieces", len(res.parcels), want)
	}
	for _, d := range cs.PrintData {
		if res.format == "" {
			res.format = strings.ToUpper(strings.TrimSpace(d.LabelFormat))
		}
		for _, data := range d.Data {
			if data = strings.TrimSpace(data); data != "" {
				res.data = append(res.data, data)
			}
		}
	}
	if len(res.data) == 0 {
		return res, fmt.Errorf("the answer has no label (PrintData)")
	}
	return res, nil
}

// labelOf is the label of an answer in format f: each document decoded
// after its size is checked, and held to what a label of f is. One
// document is the label; several (a label per parcel) are its
// PieceDocuments, which the purchase joins.
func labelOf(res created, f carriers.LabelFormat, status int) (carriers.Label, error) {
	label := res.sold()
	if res.format != wireFormat(f) {
		return carriers.Label{}, malformed(opBuy, status, "the label is %q, not the %s asked for", carriers.Excerpt(res.format), wireFormat(f))
	}
	docs := make([][]byte, 0, len(res.data))
	for i, data := range res.data {
		if err := carriers.CheckLabelBase64(data); err != nil {
			return carriers.Label{}, malformed(opBuy, status, "%v", err)
		}
		doc, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return carriers.Label{}, malformed(opBuy, status, "label %d is not base64", i+1)
		}
		if err := checkDocument(doc, f); err != nil {
			return carriers.Label{}, malformed(opBuy, status, "label %d: %v", i+1, err)
		}
		docs = append(docs, doc)
	}
	label.Format = f
	if len(docs) == 1 {
		label.Document = docs[0]
	} else {
		label.PieceDocuments = docs
	}
	return label, nil
}

// checkDocument holds a label document to what a label of format f is.
func checkDocument(doc []byte, f carriers.LabelFormat) error {
	switch f {
	case carriers.LabelZPL:
		return carriers.CheckZPL(doc)
	case carriers.LabelPNG:
		_, err := carriers.CheckLabelImage(doc, "png")
		return err
	}
	if !bytes.HasPrefix(doc, []byte("%PDF-")) {
		return fmt.Errorf("it is not a PDF")
	}
	return nil
}
