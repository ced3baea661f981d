package glsfake

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers/fakekit"
)

// glsCountries are the countries of GLS's national companies: a route
// leaves from one of them.
var glsCountries = []string{"AT", "BE", "BG", "CZ", "DE", "DK", "EE", "ES", "FI", "FR", "GR", "HR", "HU", "IE",
	"IT", "LT", "LU", "LV", "NL", "PL", "PT", "RO", "SE", "SI", "SK"}

// expressCountries are where the fake sells EXPRESS: within and between them.
var expressCountries = []string{"AT", "BE", "DE", "LU", "NL"}

// maxKg is the heaviest parcel the fake takes.
const maxKg = 40

// allowed is POST /rs/shipments/allowedservices: PARCEL from a GLS
// country to anywhere, EXPRESS between the express countries.
func (s *Server) allowed(w http.ResponseWriter, r *http.Request, m map[string]any) {
	src, dst := str(obj(m, "Source"), "CountryCode"), str(obj(m, "Destination"), "CountryCode")
	if len(src) != 2 || len(dst) != 2 {
		ShipITError(w, http.StatusBadRequest, "ERROR_LOCATION", "Source and Destination need a CountryCode")
		return
	}
	if c := str(m, "ContactID"); c != "" && c != contactOf(r) {
		ShipITError(w, http.StatusBadRequest, "ERROR_CONTACTID", "ContactID is not valid for this client")
		return
	}
	var list []any
	if slices.Contains(glsCountries, src) {
		list = append(list, map[string]string{"ProductName": "PARCEL", "ServiceName": "service_flexdelivery"})
		if slices.Contains(expressCountries, src) && slices.Contains(expressCountries, dst) {
			list = append(list, map[string]string{"ProductName": "EXPRESS", "ServiceName": ""})
		}
	}
	writeShipIT(w, map[string]any{"AllowedServices": list})
}

// labelFormats are the LabelFormat and TemplateSet pairs the fake prints.
var labelFormats = map[string][]string{"PDF": {"NONE"}, "PNG": {"NONE"}, "ZEBRA": {"ZPL_200", "ZPL_300"}}

// checkAddress says what is wrong with an Address (Name1, Street, City,
// CountryCode required), "" when nothing.
func checkAddress(a map[string]any, where string) string {
	if a == nil {
		return where + " is missing"
	}
	for _, f := range []string{"Name1", "Street", "City", "CountryCode"} {
		if str(a, f) == "" {
			return where + "." + f + " is required"
		}
	}
	if len(str(a, "CountryCode")) != 2 {
		return where + ".CountryCode must be a 2-letter code"
	}
	return ""
}

// printing reads PrintingOptions.ReturnLabels.
func printing(m map[string]any) (format string, problem string) {
	rl := obj(obj(m, "PrintingOptions"), "ReturnLabels")
	format, set := str(rl, "LabelFormat"), str(rl, "TemplateSet")
	if sets, ok := labelFormats[format]; !ok || !slices.Contains(sets, set) {
		return "", fmt.Sprintf("LabelFormat %q with TemplateSet %q is not printable", format, set)
	}
	return format, ""
}

// ship is POST /rs/shipments: a parcel per ShipmentUnit, under one
// shipment, each with a TrackID and a parcel number, and their labels.
func (s *Server) ship(w http.ResponseWriter, r *http.Request, m map[string]any) {
	sh := obj(m, "Shipment")
	if sh == nil {
		ShipITError(w, http.StatusBadRequest, "ERROR_SHIPMENT", "Shipment is required")
		return
	}
	format, problem := printing(m)
	product := str(sh, "Product")
	shipper, cons := obj(sh, "Shipper"), obj(sh, "Consignee")
	switch {
	case problem != "":
	case product != "PARCEL" && product != "EXPRESS":
		problem = fmt.Sprintf("Product %q is not sold", product)
	case str(shipper, "ContactID") != contactOf(r):
		problem = "Shipper.ContactID is not valid for this client"
	default:
		problem = checkAddress(obj(cons, "Address"), "Consignee.Address")
		if a := obj(shipper, "Address"); problem == "" && a != nil {
			problem = checkAddress(a, "Shipper.Address")
		}
	}
	units, _ := sh["ShipmentUnit"].([]any)
	if problem == "" && (len(units) == 0 || len(units) > 99) {
		problem = "a shipment has 1 to 99 ShipmentUnits"
	}
	var kgs []float64
	var unitRefs [][]string
	for i, u := range units {
		um, _ := u.(map[string]any)
		kg, _ := um["Weight"].(float64)
		if problem == "" && (kg <= 0 || kg > maxKg) {
			problem = fmt.Sprintf("ShipmentUnit[%d].Weight %g kg is not within 0 and %d kg", i, kg, maxKg)
		}
		kgs = append(kgs, kg)
		unitRefs = append(unitRefs, strings_(um["ShipmentUnitReference"]))
	}
	if problem != "" {
		ShipITError(w, http.StatusBadRequest, "ERROR_VALIDATION", problem)
		return
	}
	refs := strings_(sh["ShipmentReference"])
	ref := ""
	if len(refs) > 0 {
		ref = refs[0]
	}
	s.mu.Lock()
	var parcels []*sale
	var numbers []string
	for i := range units {
		s.seq++
		number := fmt.Sprintf("%011d", 90000000000+int64(s.seq)*7)
		trackID := fmt.Sprintf("ZX%06d", s.seq)
		s.byTrackID[trackID] = number
		numbers = append(numbers, number)
		parcels = append(parcels, &sale{Sale: fakekit.Sale{TrackingNumber: number, Reference: ref, Account: contactOf(r), SoldAt: s.Now()},
			trackID: trackID, product: product, kg: kgs[i], consignee: obj(cons, "Address"), format: format})
	}
	s.mu.Unlock()
	for _, p := range parcels {
		p.Pieces = numbers
		s.sales.Sell(p)
	}
	var data []any
	var pd []any
	for i, p := range parcels {
		doc, err := labelDocument(format, p.TrackingNumber, p.trackID, product, p.consignee)
		if err != nil {
			ShipITError(w, http.StatusInternalServerError, "ERROR_PRINT", err.Error())
			return
		}
		data = append(data, base64.StdEncoding.EncodeToString(doc))
		pd = append(pd, map[string]any{"TrackID": p.trackID, "ParcelNumber": p.TrackingNumber, "ShipmentUnitReference": unitRefs[i]})
	}
	writeShipIT(w, map[string]any{"CreatedShipment": map[string]any{
		"ShipmentReference": refs, "ParcelData": pd, "PrintData": []any{map[string]any{"Data": data, "LabelFormat": format}},
		"CustomerID": "2760000001", "PickupLocation": "DE 0276",
	}})
}

// strings_ reads a JSON array of strings.
func strings_(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// cancel is POST /rs/shipments/cancel/{trackID}: CANCELLED until the
// parcel is scanned (its second Track And Trace call, or Scan), SCANNED
// after.
func (s *Server) cancel(w http.ResponseWriter, r *http.Request, _ []byte) {
	id := r.PathValue("trackID")
	s.mu.Lock()
	number, ok := s.byTrackID[id]
	s.mu.Unlock()
	result := "CANCELLED"
	if !ok || !s.sales.With(number, func(p *sale) {
		switch {
		case p.Account != contactOf(r):
			ok = false
		case p.State == fakekit.Voided:
		case p.scanned || p.trackCalls >= 2:
			result = "SCANNED"
		default:
			p.State = fakekit.Voided
		}
	}) || !ok {
		ShipITError(w, http.StatusNotFound, "ERROR_TRACKID", "TrackID "+id+" not found")
		return
	}
	writeShipIT(w, map[string]string{"TrackID": id, "Result": result})
}

// reprint is POST /rs/shipments/reprintparcel, by TrackID.
func (s *Server) reprint(w http.ResponseWriter, r *http.Request, m map[string]any) {
	format, problem := printing(m)
	if problem != "" {
		ShipITError(w, http.StatusBadRequest, "ERROR_VALIDATION", problem)
		return
	}
	id := str(m, "TrackID")
	s.mu.Lock()
	number, ok := s.byTrackID[id]
	s.mu.Unlock()
	var doc []byte
	var err error
	var ref string
	found := ok && s.sales.With(number, func(p *sale) {
		if p.Account != contactOf(r) || p.State == fakekit.Voided {
			ok = false
			return
		}
		ref = p.Reference
		doc, err = labelDocument(format, p.TrackingNumber, p.trackID, p.product, p.consignee)
	})
	if !found || !ok || err != nil {
		ShipITError(w, http.StatusNotFound, "ERROR_TRACKID", "TrackID "+id+" cannot be reprinted")
		return
	}
	writeShipIT(w, map[string]any{"CreatedShipment": map[string]any{
		"ShipmentReference": []string{ref}, "ParcelData": []any{map[string]any{"TrackID": id, "ParcelNumber": number}},
		"PrintData":  []any{map[string]any{"Data": []string{base64.StdEncoding.EncodeToString(doc)}, "LabelFormat": format}},
		"CustomerID": "2760000001", "PickupLocation": "DE 0276",
	}})
}

// find is POST /rs/tracking/parcels: the parcels of a ShipmentReference
// created between DateFrom and DateTo.
func (s *Server) find(w http.ResponseWriter, r *http.Request, m map[string]any) {
	from, err1 := time.Parse(time.RFC3339, str(m, "DateFrom"))
	to, err2 := time.Parse(time.RFC3339, str(m, "DateTo"))
	ref := str(m, "ShipmentReference")
	if err1 != nil || err2 != nil || ref == "" {
		ShipITError(w, http.StatusBadRequest, "ERROR_VALIDATION", "ShipmentReference, DateFrom and DateTo are required")
		return
	}
	items := []any{}
	s.sales.Each(func(p *sale) {
		if p.Reference != ref || p.Account != contactOf(r) || p.SoldAt.Before(from) || p.SoldAt.After(to) {
			return
		}
		status := "PREADVICE"
		if p.State == fakekit.Voided {
			status = "CANCELED"
		}
		i := slices.Index(p.Pieces, p.TrackingNumber)
		items = append(items, map[string]any{"TrackID": p.trackID, "ParcelNumber": p.TrackingNumber, "ShipmentReference": []string{ref},
			"ShipmentUnitReference": []string{fmt.Sprintf("%s-%d", ref, i+1)}, "InitialDate": p.SoldAt.UTC().Format(time.RFC3339), "Status": status})
	})
	writeShipIT(w, map[string]any{"UnitItems": items})
}

// endOfDay is POST /rs/shipments/endofday?date=YYYY-MM-DD: the shipments
// created that day (the fake's clock, UTC) and not cancelled.
func (s *Server) endOfDay(w http.ResponseWriter, r *http.Request, _ []byte) {
	day, err := time.Parse("2006-01-02", r.URL.Query().Get("date"))
	if err != nil {
		ShipITError(w, http.StatusBadRequest, "ERROR_DATE", "date must be YYYY-MM-DD")
		return
	}
	shipments := []any{}
	s.sales.Each(func(p *sale) {
		if p.Account != contactOf(r) || p.State == fakekit.Voided || p.SoldAt.UTC().Format("2006-01-02") != day.Format("2006-01-02") {
			return
		}
		shipments = append(shipments, map[string]any{
			"Product":      p.product,
			"Consignee":    map[string]any{"Address": p.consignee},
			"Shipper":      map[string]any{"ContactID": p.Account},
			"ShipmentUnit": []any{map[string]any{"TrackID": p.trackID, "ParcelNumber": p.TrackingNumber, "Weight": p.kg}},
		})
	})
	writeShipIT(w, map[string]any{"Shipments": shipments})
}

// Collection is a sporadic collection the fake was asked for.
type Collection struct {
	ContactID, Product, AdditionalInformation string
	PreferredPickUpDate                       time.Time
	NumberOfParcels                           int
}

// collection is POST /rs/sporadiccollection: the estimated day is the
// preferred one, moved to Monday from a weekend.
func (s *Server) collection(w http.ResponseWriter, r *http.Request, m map[string]any) {
	at, err := time.Parse(time.RFC3339, str(m, "PreferredPickUpDate"))
	product := str(m, "Product")
	switch {
	case err != nil:
		ShipITError(w, http.StatusBadRequest, "ERROR_VALIDATION", "PreferredPickUpDate must be a date-time")
		return
	case str(m, "ContactID") != contactOf(r):
		ShipITError(w, http.StatusBadRequest, "ERROR_CONTACTID", "ContactID is not valid for this client")
		return
	case product != "PARCEL" && product != "EXPRESS":
		ShipITError(w, http.StatusBadRequest, "ERROR_VALIDATION", "Product is required")
		return
	}
	n, _ := m["NumberOfParcels"].(float64)
	s.mu.Lock()
	s.collections = append(s.collections, Collection{ContactID: str(m, "ContactID"), Product: product,
		AdditionalInformation: str(m, "AdditionalInformation"), PreferredPickUpDate: at, NumberOfParcels: int(n)})
	s.mu.Unlock()
	for at.Weekday() == time.Saturday || at.Weekday() == time.Sunday {
		at = at.AddDate(0, 0, 1)
	}
	writeShipIT(w, map[string]string{"EstimatedPickUpDate": at.Format(time.RFC3339)})
}

// Collections are the collections asked for, in order.
func (s *Server) Collections() []Collection {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.collections)
}

// labelDocument is a parcel's label in format: an A6 PDF, a 203 dpi ZPL
// label, or a PNG image, each carrying the parcel number.
func labelDocument(format, number, trackID, product string, to map[string]any) ([]byte, error) {
	lines := []string{"GLS " + product, "Parcel " + number, "TrackID " + trackID, str(to, "Name1"), str(to, "Street"),
		strings.TrimSpace(str(to, "Zipcode") + " " + str(to, "City")), str(to, "CountryCode")}
	switch format {
	case "ZEBRA":
		var b strings.Builder
		b.WriteString("^XA\n^PW812\n^LL1218\n")
		for i, l := range lines {
			fmt.Fprintf(&b, "^FO40,%d^A0N,40,40^FD%s^FS\n", 40+50*i, strings.NewReplacer("^", " ", "~", " ").Replace(l))
		}
		fmt.Fprintf(&b, "^FO60,700^BY3^BCN,200,Y,N,N^FD%s^FS\n^XZ\n", number)
		return []byte(b.String()), nil
	case "PNG":
		img := image.NewGray(image.Rect(0, 0, 400, 600))
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		for x := 40; x < 360; x++ {
			if (x/4)%2 == 0 {
				for y := 400; y < 520; y++ {
					img.SetGray(x, y, color.Gray{})
				}
			}
		}
		var buf bytes.Buffer
		err := png.Encode(&buf, img)
		return buf.Bytes(), err
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: fpdf.SizeType{Wd: 105, Ht: 148}})
	pdf.SetCompression(false)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 11)
	for _, l := range lines {
		pdf.Cell(0, 7, l)
		pdf.Ln(7)
	}
	var buf bytes.Buffer
	err := pdf.Output(&buf)
	return buf.Bytes(), err
}
