package dhlparcelde

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// retoureMarker is the CarrierShipmentID of a DHL Retoure label: Void and
// Manifest tell it from an order of the Shipping API by it, since a
// return's shipment number is of no form of its own.
const retoureMarker = "DHL-RETOURE"

// returnCountries are the countries a DHL Retoure label is sent from: the
// Returns API's Country enum (its receiverId and shipperCountry), in
// shipd's two letters.
var returnCountries = []string{"AT", "BE", "BG", "CH", "CY", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GB", "GR", "HR",
	"HU", "IE", "IT", "LT", "LU", "LV", "MT", "NL", "NO", "PL", "PT", "RO", "SE", "SI", "SK"}

// servesReturn reports whether DHL Retoure takes a return label: back to
// a merchant in Germany, from a country of the Returns API, within its
// limits.
func (s service) servesReturn(sh carriers.Shipment) bool {
	return carriers.NormalizeCountry(sh.To.Country) == "DE" &&
		slices.Contains(returnCountries, carriers.NormalizeCountry(sh.From.Country)) && s.fits(sh.Parcel)
}

// ReturnService: DHL Retoure is the one service bought as a return label.
func (c *Carrier) ReturnService(service string) bool {
	return strings.EqualFold(strings.TrimSpace(service), returnService.name)
}

// ReturnOrder (pp-parcel-returns.yaml).
type returnOrder struct {
	ReceiverID        string          `json:"receiverId"`
	CustomerReference string          `json:"customerReference,omitempty"`
	ShipmentReference string          `json:"shipmentReference,omitempty"`
	Shipper           returnAddress   `json:"shipper"`
	ItemWeight        *returnWeight   `json:"itemWeight,omitempty"`
	ItemValue         *money          `json:"itemValue,omitempty"`
	CustomsDetails    *returnsCustoms `json:"customsDetails,omitempty"`
}

// returnAddress is the Returns API's ContactAddress: the customer, whose
// country the receiverId says.
type returnAddress struct {
	Name1         string `json:"name1"`
	Name2         string `json:"name2,omitempty"`
	AddressStreet string `json:"addressStreet"`
	AddressHouse  string `json:"addressHouse"`
	PostalCode    string `json:"postalCode"`
	City          string `json:"city"`
	Email         string `json:"email,omitempty"`
	Phone         string `json:"phone,omitempty"`
}

// returnWeight is the Returns API's Weight: a number of grams, to the
// milligram.
type returnWeight struct {
	UOM   string `json:"uom"`
	Value int    `json:"value"`
}

type returnsCustoms struct {
	Items []returnCommodity `json:"items"`
}

type returnCommodity struct {
	ItemDescription  string       `json:"itemDescription"`
	PackagedQuantity int          `json:"packagedQuantity"`
	CountryOfOrigin  string       `json:"countryOfOrigin,omitempty"`
	HSCode           string       `json:"hsCode,omitempty"`
	ItemWeight       returnWeight `json:"itemWeight"`
	ItemValue        money        `json:"itemValue"`
}

// maxReturnCommodities is the most lines a return's declaration takes.
const maxReturnCommodities = 20

// ReturnOrderConfirmation (pp-parcel-returns.yaml), as far as shipd reads it.
type returnConfirmation struct {
	ShipmentNo string    `json:"shipmentNo"`
	Label      *document `json:"label"`
}

// buyReturn buys a DHL Retoure label (POST /orders of the Returns API):
// the customer (From) sends the parcel to the merchant's return receiver
// in Germany that DHL keeps for the customer's country (receiverId, the
// country's three letters as DHL names its receivers: "deu", "che"), so
// the merchant's address itself is not sent. The label is a PDF, drawn as
// DHL draws it: the Returns API has no print format and no ZPL. A return
// from outside the EU carries its customs lines ("mandatory for returns
// with the DHL Retoure International from outside the European Union").
func (c *Carrier) buyReturn(ctx context.Context, req carriers.BuyRequest, svc service, ref string) (carriers.Label, error) {
	s := req.Shipment
	if !s.Return {
		return carriers.Label{}, rejected(opBuy, "DHL Retoure is a return label: the shipment must be a return")
	}
	if !svc.servesReturn(s) {
		return carriers.Label{}, rejected(opBuy, "DHL Retoure takes returns to Germany from %s only, within 31.5 kg",
			strings.Join(returnCountries, ", "))
	}
	if req.Format() != carriers.LabelPDF {
		return carriers.Label{}, rejected(opBuy, "DHL's Returns API draws PDF labels only, not %s", carriers.Excerpt(string(req.Format())))
	}
	street, house := splitStreet(s.From.Street1)
	name1, name2 := names(s.From)
	body := returnOrder{
		ReceiverID:        strings.ToLower(iso3(s.From.Country)),
		CustomerReference: cut(ref, 50), ShipmentReference: cut(ref, 50),
		Shipper: returnAddress{Name1: cut(name1, 50), Name2: cut(name2, 50), AddressStreet: cut(street, 50), AddressHouse: house,
			PostalCode: strings.ToUpper(strings.TrimSpace(s.From.Zip)), City: cut(s.From.City, 40)},
		ItemWeight: &returnWeight{UOM: "g", Value: grams(s.Parcel)},
	}
	if e := strings.TrimSpace(s.From.Email); len(e) >= 3 && len([]rune(e)) <= 70 {
		body.Shipper.Email = e
	}
	if p := strings.TrimSpace(s.From.Phone); p != "" && len([]rune(p)) <= 20 {
		body.Shipper.Phone = p
	}
	if s.Customs != nil {
		body.ItemValue = &money{Currency: customsCurrency, Value: euros(s.Customs.TotalValueCents())}
	}
	if carriers.CustomsRequired(s.From, s.To) {
		body.CustomsDetails = returnCustomsOf(s.Customs)
	}
	a, err := c.do(ctx, apiRequest{op: opBuy, method: http.MethodPost, path: returnsPath + "/orders",
		query: url.Values{"labelType": {"SHIPMENT_LABEL"}}, body: body})
	if err != nil {
		return carriers.Label{}, c.scrub(err)
	}
	if !a.ok() {
		return carriers.Label{}, c.scrub(c.failure(opBuy, a))
	}
	label, err := parseReturnAnswer(a.status, a.body)
	return label, c.scrub(err)
}

// returnCustomsOf is a return's declaration: each line's unit value and
// weight, as the Shipping API's (customsOf), at most 20 lines.
func returnCustomsOf(cu *carriers.Customs) *returnsCustoms {
	if cu == nil {
		return nil
	}
	out := &returnsCustoms{}
	for i, it := range cu.Items {
		if i == maxReturnCommodities {
			break
		}
		qty := max(it.Quantity, 1)
		unitGrams := int(math.Ceil(it.WeightOz*carriers.GramsPerOunce/float64(qty) - 1e-9))
		rc := returnCommodity{
			ItemDescription: cut(it.Description, 50), PackagedQuantity: qty,
			ItemWeight: returnWeight{UOM: "g", Value: max(unitGrams, 1)},
			ItemValue:  money{Currency: customsCurrency, Value: euros(int64(math.Round(float64(it.ValueCents) / float64(qty))))},
		}
		if strings.TrimSpace(it.OriginCountry) != "" {
			rc.CountryOfOrigin = iso3(it.OriginCountry)
		}
		if hs, ok := carriers.HSDigits(it.HSTariffNumber); ok && len(hs) >= 6 && len(hs) <= 11 {
			rc.HSCode = hs
		}
		if rc.ItemDescription == "" {
			rc.ItemDescription = cut(cu.ContentsType, 50)
		}
		out.Items = append(out.Items, rc)
	}
	return out
}

// parseReturnAnswer reads a return order's 2xx answer: its shipment number
// and its PDF label, marked as DHL Retoure's.
func parseReturnAnswer(httpStatus int, body []byte) (carriers.Label, error) {
	var r returnConfirmation
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, malformed(opBuy, httpStatus, "the return order answer is not the documented JSON: %v", err)
	}
	tn := carriers.NormalizeTrackingNumber(r.ShipmentNo)
	if tn == "" {
		return carriers.Label{}, malformed(opBuy, httpStatus, "the return order answer has no shipmentNo")
	}
	sold := carriers.Label{TrackingNumber: tn, CarrierShipmentID: retoureMarker}
	if r.Label == nil || strings.TrimSpace(r.Label.B64) == "" {
		return carriers.Label{}, carriers.Unusable(sold, malformed(opBuy, httpStatus, "the return label of %s is missing", tn))
	}
	pdf, err := pdfOf(httpStatus, r.Label.B64, "the return label of "+tn)
	if err != nil {
		return carriers.Label{}, carriers.Unusable(sold, err)
	}
	return carriers.Label{TrackingNumber: tn, CarrierShipmentID: retoureMarker, Document: pdf, Format: carriers.LabelPDF}, nil
}
