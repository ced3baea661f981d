package dhlparceldefake

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// shipment is what the fake keeps of a label it sold.
type shipment struct {
	fakekit.Sale
	product, billingNumber string
	// destination is the consignee's country (three letters), city and
	// postal code.
	destination, city, postal string
	// closedOn is the date of its closeout, "" while open.
	closedOn string
	// trackCalls counts the tracking calls, each showing one more event.
	trackCalls int
}

// Products the fake sells, with their procedure and their route:
// domestic (DEU only), eu (the EU but Germany) or abroad (not Germany).
var products = map[string]struct {
	procedure string
	route     string
	maxGrams  float64
}{
	"V01PAK":  {"01", "domestic", 31500},
	"V62KP":   {"62", "domestic", 1000},
	"V62WP":   {"62", "domestic", 1000},
	"V54EPAK": {"54", "eu", 31500},
	"V53WPAK": {"53", "abroad", 31500},
	"V66WPI":  {"66", "abroad", 1000},
}

// euCountries are the EU's members (three letters), where Europaket goes
// and where no customs declaration is needed.
var euCountries = []string{"AUT", "BEL", "BGR", "HRV", "CYP", "CZE", "DNK", "EST", "FIN", "FRA", "DEU", "GRC", "HUN",
	"IRL", "ITA", "LVA", "LTU", "LUX", "MLT", "NLD", "POL", "PRT", "ROU", "SVK", "SVN", "ESP", "SWE"}

// The parts of an order the fake reads; the documents check the rest.
type orderRequest struct {
	Profile   string       `json:"profile"`
	Shipments []orderEntry `json:"shipments"`
}

type orderEntry struct {
	Product       string          `json:"product"`
	BillingNumber string          `json:"billingNumber"`
	RefNo         string          `json:"refNo"`
	ShipDate      string          `json:"shipDate"`
	Shipper       json.RawMessage `json:"shipper"`
	Consignee     struct {
		Name1         string `json:"name1"`
		AddressStreet string `json:"addressStreet"`
		AddressHouse  string `json:"addressHouse"`
		PostalCode    string `json:"postalCode"`
		City          string `json:"city"`
		Country       string `json:"country"`
		Phone         string `json:"phone"`
	} `json:"consignee"`
	Details struct {
		Weight struct {
			UOM   string  `json:"uom"`
			Value float64 `json:"value"`
		} `json:"weight"`
	} `json:"details"`
	Customs *struct {
		ExportType string            `json:"exportType"`
		Items      []json.RawMessage `json:"items"`
	} `json:"customs"`
}

// refusal is why a shipment of an order is refused: the property and the
// message, as a ValidationMessageItem.
type refusal struct{ property, message string }

// check is what DHL refuses of one shipment of customer c, beyond the
// documents' schema.
func (s *Server) check(c Customer, e orderEntry, mustEncode bool) *refusal {
	p, ok := products[e.Product]
	switch {
	case !ok:
		return &refusal{"product", "The product is not known."}
	case len(e.BillingNumber) != 14 || e.BillingNumber[:10] != c.BillingNumber[:10] || e.BillingNumber[12:] != c.BillingNumber[12:]:
		return &refusal{"billingNumber", "The billing number is not one of your contract."}
	case e.BillingNumber[10:12] != p.procedure:
		return &refusal{"billingNumber", fmt.Sprintf("The billing number does not belong to product %s.", e.Product)}
	case e.ShipDate < berlinDate(s.Now()):
		return &refusal{"shipDate", "The shipment date must not be in the past."}
	}
	to := e.Consignee.Country
	switch p.route {
	case "domestic":
		if to != "DEU" {
			return &refusal{"consignee.country", fmt.Sprintf("The product %s ships within Germany only.", e.Product)}
		}
	case "eu":
		if to == "DEU" || !slices.Contains(euCountries, to) {
			return &refusal{"consignee.country", "Europaket ships to the other countries of the EU only."}
		}
	case "abroad":
		if to == "DEU" {
			return &refusal{"consignee.country", fmt.Sprintf("The product %s ships abroad only.", e.Product)}
		}
	}
	grams := e.Details.Weight.Value
	if e.Details.Weight.UOM == "kg" {
		grams *= 1000
	}
	if grams <= 0 || grams > p.maxGrams {
		return &refusal{"details.weight", "The weight is out of the product's range."}
	}
	if to == "DEU" && e.Consignee.Phone != "" {
		return &refusal{"consignee.phone", "The phone number cannot be transmitted for shipments within Germany."}
	}
	if mustEncode && to == "DEU" && e.Consignee.AddressHouse == "" && !strings.ContainsAny(e.Consignee.AddressStreet, "0123456789") {
		return &refusal{"consignee", "The address is not encodable: the house number is missing."}
	}
	if !slices.Contains(euCountries, to) && p.route == "abroad" && (e.Customs == nil || len(e.Customs.Items) == 0) {
		return &refusal{"customs", "Customs details are required for this destination."}
	}
	return nil
}

// order is POST /orders: each shipment checked, the valid ones sold. One
// shipment answers 200 or, refused, 400; several answer 207 with an item
// each.
func (s *Server) order(w http.ResponseWriter, r *http.Request, body []byte) {
	var req orderRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Profile != "STANDARD_GRUPPENPROFIL" || len(req.Shipments) == 0 {
		writeJSON(w, http.StatusBadRequest, problemJSON, map[string]any{
			"status": requestStatus(http.StatusBadRequest, "Bad Request", "The profile or the shipments are missing or unknown."),
			"items":  []any{map[string]any{"sstatus": requestStatus(http.StatusBadRequest, "Bad Request", "")}},
		})
		return
	}
	q := r.URL.Query()
	docFormat, printFormat := q.Get("docFormat"), q.Get("printFormat")
	if docFormat == "" {
		docFormat = "PDF"
	}
	if printFormat == "" {
		printFormat = "910-300-700"
	}
	c := s.customerOf(r)
	items := make([]any, 0, len(req.Shipments))
	refused := 0
	for _, e := range req.Shipments {
		if why := s.check(c, e, q.Get("mustEncode") == "true"); why != nil {
			refused++
			items = append(items, map[string]any{
				"sstatus": requestStatus(http.StatusBadRequest, "Bad Request", "Validation failed."),
				"validationMessages": []any{map[string]string{
					"property": why.property, "validationMessage": why.message, "validationState": "Error"}},
			})
			continue
		}
		items = append(items, s.sell(c, e, docFormat, printFormat))
	}
	status, title := http.StatusOK, "OK"
	switch {
	case len(req.Shipments) > 1:
		status, title = http.StatusMultiStatus, "Multistatus"
	case refused == 1:
		status, title = http.StatusBadRequest, "Bad Request"
	}
	ct := plainJSON
	if status == http.StatusBadRequest {
		ct = problemJSON
	}
	writeJSON(w, status, ct, map[string]any{"status": requestStatus(status, title, ""), "items": items})
}

// sell books one shipment and answers its item: its number, its label
// in the format asked, and for Paket International with customs its CN23.
func (s *Server) sell(c Customer, e orderEntry, docFormat, printFormat string) map[string]any {
	tn := fmt.Sprintf("0034043416%010d", s.next())
	s.sales.Sell(&shipment{
		Sale:    fakekit.Sale{TrackingNumber: tn, Reference: e.RefNo, Account: c.Username, SoldAt: s.Now()},
		product: e.Product, billingNumber: e.BillingNumber,
		destination: e.Consignee.Country, city: e.Consignee.City, postal: e.Consignee.PostalCode,
	})
	label := map[string]any{"fileFormat": docFormat, "printFormat": documentPrintFormat(printFormat)}
	if docFormat == "ZPL2" {
		label["zpl2"] = labelZPL(tn, e.Product, e.Consignee.Name1, e.Consignee.City)
	} else {
		s.mu.Lock()
		override := s.labelDoc
		s.mu.Unlock()
		if override != nil {
			label["b64"] = *override
		} else {
			pdf, _ := fakekit.TextPDF("DHL "+e.Product, []string{"Sendungsnummer " + tn, "Print format " + printFormat,
				"An: " + e.Consignee.Name1, e.Consignee.PostalCode + " " + e.Consignee.City, "Referenz " + e.RefNo})
			label["b64"] = base64.StdEncoding.EncodeToString(pdf)
		}
	}
	it := map[string]any{
		"shipmentNo":  tn,
		"routingCode": "40327653113+99000943058020",
		"sstatus":     requestStatus(http.StatusOK, "OK", ""),
		"label":       label,
	}
	if e.Product == "V53WPAK" && e.Customs != nil {
		pdf, _ := fakekit.TextPDF("CN 23 - CUSTOMS DECLARATION", []string{"Sendungsnummer " + tn, "Export type " + e.Customs.ExportType})
		it["customsDoc"] = map[string]any{"b64": base64.StdEncoding.EncodeToString(pdf), "fileFormat": "PDF", "printFormat": "A4"}
	}
	return it
}

// documentPrintFormat is the Document.printFormat DHL names a label's
// print format by: the query's value where the Document's enum has it,
// its pair ("910-300-600/610") where the enum joins two.
func documentPrintFormat(pf string) string {
	switch pf {
	case "910-300-600", "910-300-610":
		return "910-300-600/610"
	case "910-300-400", "910-300-410":
		return "910-300-400/410"
	case "910-300-700-oz":
		return "910-300-700-oZ/oz"
	}
	return pf
}

// labelZPL is a ZPL II label of the shipment, for 203 dpi thermal printers.
func labelZPL(tn, product, name, city string) string {
	return "^XA^CI28^FO40,40^A0N,40,40^FDDHL " + product + "^FS^FO40,100^A0N,30,30^FD" + name + "^FS^FO40,140^A0N,30,30^FD" + city +
		"^FS^FO40,220^BCN,120,Y,N,N^FD" + tn + "^FS^XZ\n"
}

// delete is DELETE /orders?profile=…&shipment=…: each shipment of the
// caller's deleted unless closed out or deleted already.
func (s *Server) delete(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	numbers := q["shipment"]
	if q.Get("profile") != "STANDARD_GRUPPENPROFIL" || len(numbers) == 0 {
		writeJSON(w, http.StatusBadRequest, problemJSON, map[string]any{
			"status": requestStatus(http.StatusBadRequest, "Bad Request", "The profile or the shipment is missing or unknown.")})
		return
	}
	c := s.customerOf(r)
	items := make([]any, 0, len(numbers))
	refused := 0
	for _, tn := range numbers {
		err := s.sales.Void(tn, c.Username, func(sh *shipment) error {
			if sh.closedOn != "" {
				return errClosed
			}
			return nil
		})
		if err != nil {
			refused++
			detail := "Shipment not found or already deleted."
			if err == errClosed {
				detail = "The shipment has been manifested and cannot be deleted."
			}
			items = append(items, map[string]any{"shipmentNo": tn, "sstatus": requestStatus(http.StatusBadRequest, "Bad Request", detail)})
			continue
		}
		items = append(items, map[string]any{"shipmentNo": tn, "sstatus": requestStatus(http.StatusOK, "OK", "")})
	}
	status, title, ct := http.StatusOK, "OK", plainJSON
	switch {
	case len(numbers) > 1:
		status, title = http.StatusMultiStatus, "Multistatus"
	case refused == 1:
		status, title, ct = http.StatusBadRequest, "Bad Request", problemJSON
	}
	writeJSON(w, status, ct, map[string]any{"status": requestStatus(status, title, ""), "items": items})
}

var errClosed = fmt.Errorf("dhlparceldefake: the shipment is closed out")

// closeout is POST /manifests: the shipments named (or, with all=true,
// every open one of the caller) closed out today; one closed already is a
// warning, one unknown or deleted refused.
func (s *Server) closeout(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Profile         string   `json:"profile"`
		ShipmentNumbers []string `json:"shipmentNumbers"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Profile != "STANDARD_GRUPPENPROFIL" {
		writeJSON(w, http.StatusBadRequest, problemJSON, map[string]any{
			"status": requestStatus(http.StatusBadRequest, "Bad Request", "The profile is missing or unknown.")})
		return
	}
	c := s.customerOf(r)
	today := berlinDate(s.Now())
	numbers := req.ShipmentNumbers
	if r.URL.Query().Get("all") == "true" {
		s.sales.Each(func(sh *shipment) {
			if sh.Account == c.Username && sh.State == fakekit.Sold && sh.closedOn == "" && !sh.Return {
				numbers = append(numbers, sh.TrackingNumber)
			}
		})
	}
	items := make([]any, 0, len(numbers))
	for _, tn := range numbers {
		st := requestStatus(http.StatusBadRequest, "Bad Request", "Shipment not found or deleted.")
		s.sales.With(tn, func(sh *shipment) {
			switch {
			case sh.Account != c.Username || sh.State != fakekit.Sold || sh.Return:
			case sh.closedOn != "":
				st = requestStatus(http.StatusOK, "Warning", "The shipment has already been manifested.")
			default:
				sh.closedOn = today
				st = requestStatus(http.StatusOK, "OK", "")
			}
		})
		items = append(items, map[string]any{"shipmentNo": tn, "sstatus": st})
	}
	writeJSON(w, http.StatusMultiStatus, plainJSON, map[string]any{
		"status": requestStatus(http.StatusMultiStatus, "Multistatus", ""), "items": items})
}

// manifest is GET /manifests?date=…: the caller's shipments closed out
// that day (today without a date), a sheet per billing number, the PDF
// included or as a link.
func (s *Server) manifest(w http.ResponseWriter, r *http.Request, _ []byte) {
	q := r.URL.Query()
	date := q.Get("date")
	if date == "" {
		date = berlinDate(s.Now())
	}
	c := s.customerOf(r)
	var lines []string
	sheets := map[string]string{}
	var billing []string
	var items []any
	s.sales.Each(func(sh *shipment) {
		if sh.Account != c.Username || sh.closedOn != date {
			return
		}
		if _, ok := sheets[sh.billingNumber]; !ok {
			billing = append(billing, sh.billingNumber)
			sheets[sh.billingNumber] = fmt.Sprintf("%s%03d", strings.ReplaceAll(date, "-", ""), len(billing))
		}
		items = append(items, map[string]any{"shipmentNo": sh.TrackingNumber, "sheetNo": sheets[sh.billingNumber],
			"sstatus": requestStatus(http.StatusOK, "OK", "")})
		lines = append(lines, sh.TrackingNumber+"  "+sh.product+"  "+sh.billingNumber+"  "+sh.postal+" "+sh.city)
	})
	var sheetNo []any
	for _, b := range billing {
		sheetNo = append(sheetNo, map[string]string{"billingNumber": b, "sheetNo": sheets[b]})
	}
	doc := map[string]any{"fileFormat": "PDF", "printFormat": "A4"}
	if q.Get("includeDocs") == "URL" {
		doc["url"] = "https://api-eu.dhl.com/parcel/de/shipping/v2/labels?token=" + fakekit.NewID("")
	} else {
		pdf, _ := fakekit.TextPDF("DHL PAKET TAGESABSCHLUSS "+date, lines)
		doc["b64"] = base64.StdEncoding.EncodeToString(pdf)
	}
	answer := map[string]any{"status": requestStatus(http.StatusOK, "OK", ""), "manifestDate": date, "manifest": []any{doc}}
	if len(sheetNo) > 0 {
		answer["sheetNo"], answer["items"] = sheetNo, items
	}
	writeJSON(w, http.StatusOK, plainJSON, answer)
}

// ClosedOn is the date of the closeout of the shipment of tn, "" while open.
func (s *Server) ClosedOn(tn string) string {
	var on string
	s.sales.With(tn, func(sh *shipment) { on = sh.closedOn })
	return on
}

// Voided reports whether the shipment of tn was deleted.
func (s *Server) Voided(tn string) bool {
	var voided bool
	s.sales.With(tn, func(sh *shipment) { voided = sh.State == fakekit.Voided })
	return voided
}

// Sold counts the labels sold, returns included.
func (s *Server) Sold() int { return s.sales.Len() }

// ByReference are the labels sold with refNo (or a return's references).
func (s *Server) ByReference(ref string) []fakekit.Sale { return s.sales.ByReference(ref) }
