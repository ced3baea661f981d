package shipping

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
)

// Input is a shipment as the caller gave it. It is also the stored format of
// a shipment's request (shipments.request): its JSON names are shipd's own,
// kept stable on purpose, and independent of the API's generated types, so
// renaming a field in the contract can never silently empty stored rows.
type Input struct {
	From   Address `json:"fromAddress"`
	To     Address `json:"toAddress"`
	Parcel Parcel  `json:"parcel"`
	// Parcels are the pieces of a multi-piece shipment (pieces.go): set
	// only with more than one, Parcel then being the first.
	Parcels []Parcel `json:"parcels,omitempty"`
	Options *Options `json:"options,omitempty"`
	Customs *Customs `json:"customs,omitempty"`
}

// Address is a postal address; optional fields are nil when not given, so
// the shipment shows them back exactly as they came.
type Address struct {
	Name        *string `json:"name,omitempty"`
	Company     *string `json:"company,omitempty"`
	Street1     string  `json:"street1"`
	Street2     *string `json:"street2,omitempty"`
	City        string  `json:"city"`
	State       *string `json:"state,omitempty"`
	Zip         string  `json:"zip"`
	Country     string  `json:"country"`
	Phone       *string `json:"phone,omitempty"`
	Email       *string `json:"email,omitempty"`
	Residential *bool   `json:"residential,omitempty"`
}

// Parcel is the package, in inches and ounces or in centimetres and grams
// as the caller gave it (one system: ParcelIssues); the shipment shows it
// back so, and the carriers get exact conversions (carrierParcel).
type Parcel struct {
	LengthIn *float64 `json:"lengthIn,omitempty"`
	WidthIn  *float64 `json:"widthIn,omitempty"`
	HeightIn *float64 `json:"heightIn,omitempty"`
	WeightOz *float64 `json:"weightOz,omitempty"`
	LengthCm *float64 `json:"lengthCm,omitempty"`
	WidthCm  *float64 `json:"widthCm,omitempty"`
	HeightCm *float64 `json:"heightCm,omitempty"`
	WeightG  *float64 `json:"weightG,omitempty"`
}

// Metric reports whether the parcel has a field in centimetres or grams.
func (p Parcel) Metric() bool {
	return p.LengthCm != nil || p.WidthCm != nil || p.HeightCm != nil || p.WeightG != nil
}

// imperial reports whether the parcel has a field in inches or ounces.
func (p Parcel) imperial() bool {
	return p.LengthIn != nil || p.WidthIn != nil || p.HeightIn != nil || p.WeightOz != nil
}

// given reports whether the caller gave the parcel at all.
func (p Parcel) given() bool { return p.Metric() || p.imperial() }

// weighed reports whether the parcel has its system's weight, above 0.
func (p Parcel) weighed() bool {
	if p.Metric() {
		return deref(p.WeightG) > 0
	}
	return deref(p.WeightOz) > 0
}

// Ounces is the parcel's weight in ounces, converted exactly from grams.
func (p Parcel) Ounces() float64 { return carrierParcel(p).WeightOz }

// ParcelIssues are the rules of one parcel the schema cannot state: one
// system, and that system's weight. path is where it is ("parcel",
// "parcels.1").
func ParcelIssues(path string, p Parcel) []Issue {
	switch {
	case p.Metric() && p.imperial():
		return []Issue{{Path: path, Message: "mixes inches and ounces (" + strings.Join(p.fieldNames(false), ", ") +
			") with centimetres and grams (" + strings.Join(p.fieldNames(true), ", ") + "): give a parcel in one system"}}
	case p.Metric() && p.WeightG == nil:
		return []Issue{{Path: path + ".weightG", Message: "is required with a parcel in centimetres", Missing: true}}
	case !p.Metric() && p.WeightOz == nil:
		return []Issue{{Path: path + ".weightOz", Message: "is required", Missing: true}}
	}
	return nil
}

// fieldNames are the names of the parcel's fields of one system.
func (p Parcel) fieldNames(metric bool) []string {
	fields := []struct {
		name string
		v    *float64
	}{{"lengthIn", p.LengthIn}, {"widthIn", p.WidthIn}, {"heightIn", p.HeightIn}, {"weightOz", p.WeightOz}}
	if metric {
		fields = []struct {
			name string
			v    *float64
		}{{"lengthCm", p.LengthCm}, {"widthCm", p.WidthCm}, {"heightCm", p.HeightCm}, {"weightG", p.WeightG}}
	}
	var names []string
	for _, f := range fields {
		if f.v != nil {
			names = append(names, f.name)
		}
	}
	return names
}

// parcelIssues applies ParcelIssues to the input's parcel or parcels as
// the caller gave them (before Pieces folds them).
func (in Input) parcelIssues() error {
	var issues []Issue
	if len(in.Parcels) > 0 {
		for i, p := range in.Parcels {
			issues = append(issues, ParcelIssues(fmt.Sprintf("parcels.%d", i), p)...)
		}
	} else if in.Parcel.given() {
		issues = ParcelIssues("parcel", in.Parcel)
	}
	if len(issues) > 0 {
		return &InputError{Issues: issues}
	}
	return nil
}

// Options are extra services.
type Options struct {
	SignatureConfirmation *bool `json:"signatureConfirmation,omitempty"`
}

// Customs is the declaration of an international shipment.
type Customs struct {
	ContentsType        string        `json:"contentsType"`
	ContentsExplanation *string       `json:"contentsExplanation,omitempty"`
	NonDeliveryOption   *string       `json:"nonDeliveryOption,omitempty"`
	Items               []CustomsItem `json:"items"`
	Incoterm            *string       `json:"incoterm,omitempty"`
	EELPFC              *string       `json:"eelPfc,omitempty"`
	InvoiceNumber       *string       `json:"invoiceNumber,omitempty"`
	ImporterTaxID       *string       `json:"importerTaxId,omitempty"`
	ExporterTaxID       *string       `json:"exporterTaxId,omitempty"`
	ExporterEORI        *string       `json:"exporterEori,omitempty"`
	ImporterVAT         *string       `json:"importerVat,omitempty"`
	IOSS                *string       `json:"ioss,omitempty"`
}

// CustomsItem is one line of a customs declaration.
type CustomsItem struct {
	Description string `json:"description"`
	Quantity    int    `json:"quantity"`
	ValueCents  int64  `json:"valueCents"`
	// WeightOz or WeightG, as the caller gave it (customsIssues: one).
	WeightOz       *float64 `json:"weightOz,omitempty"`
	WeightG        *float64 `json:"weightG,omitempty"`
	HSTariffNumber *string  `json:"hsTariffNumber,omitempty"`
	OriginCountry  *string  `json:"originCountry,omitempty"`
}

// ounces is the line's weight in ounces, converted exactly from grams.
func (it CustomsItem) ounces() float64 {
	if it.WeightG != nil {
		return *it.WeightG / carriers.GramsPerOunce
	}
	return deref(it.WeightOz)
}

// Issue is one rule an input breaks. Path is dot-separated (toAddress.state).
type Issue struct {
	Path string
	// Message completes the path: "is required for a US address".
	Message string
	// Missing: the field is absent (rather than wrong).
	Missing bool
}

// InputError lists the rules an input breaks (422).
type InputError struct{ Issues []Issue }

func (e *InputError) Error() string {
	parts := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		parts[i] = is.Path + " " + is.Message
	}
	return strings.Join(parts, "; ")
}

// AddressIssues checks what the contract's schema cannot express, as the
// carriers would: a US address needs a state, which must be a state or
// territory code, and a postal code must be one (carriers/postal.go). In
// test mode the sandbox's no-rates trigger ZIP (00000) is let through where
// a recipient may be (recipient), since it is documented to quote nothing.
func AddressIssues(mode accounts.Mode, prefix string, a Address, recipient bool) []Issue {
	if issues := StateRequired(prefix, a); len(issues) > 0 {
		return issues
	}
	var issues []Issue
	for _, p := range carriers.PostalProblems(CarrierAddress(a)) {
		if p.Field == "zip" && mode == accounts.Test && recipient && sandbox.IsNoRatesZip(a.Zip) {
			continue
		}
		issues = append(issues, Issue{Path: prefix + p.Field, Message: p.Message})
	}
	return issues
}

// StateRequired: a US address needs a state.
func StateRequired(prefix string, a Address) []Issue {
	if strings.EqualFold(a.Country, "US") && (a.State == nil || strings.TrimSpace(*a.State) == "") {
		return []Issue{{Path: prefix + "state", Message: "is required for a US address"}}
	}
	return nil
}

// check applies the shipment rules: addresses a carrier would take (above),
// and customs for an international shipment.
func (in Input) check(mode accounts.Mode) error {
	issues := append(AddressIssues(mode, "fromAddress.", in.From, false), AddressIssues(mode, "toAddress.", in.To, true)...)
	if len(issues) > 0 {
		return &InputError{Issues: issues}
	}
	if in.CustomsRequired() && in.Customs == nil {
		return errCustomsRequired
	}
	if issues := in.customsIssues(); len(issues) > 0 {
		return &InputError{Issues: issues}
	}
	return nil
}

var errCustomsRequired = &InputError{Issues: []Issue{{Path: "customs", Message: "is required for a shipment between two customs territories (an international one, but between two EU member states)", Missing: true}}}

func (in Input) international() bool {
	return !strings.EqualFold(in.From.Country, in.To.Country)
}

// CustomsRequired reports whether the shipment needs a customs declaration
// (carriers.CustomsRequired: not between two EU member states).
func (in Input) CustomsRequired() bool {
	return carriers.CustomsRequired(CarrierAddress(in.From), CarrierAddress(in.To))
}

// Normalized upper-cases the country codes and a US address's state, which
// is checked in any case but stored, printed on labels and sent to the
// carriers as the code carriers take (NY, not ny).
func (in Input) Normalized() Input {
	in.From = in.From.Normalized()
	in.To = in.To.Normalized()
	return in.Pieces()
}

// given reports whether the caller gave the address at all: a quote's may
// hold only its postal code and country (a quick quote), so no one field
// tells; an address left out is the zero value.
func (a Address) given() bool { return a != (Address{}) }

func (a Address) Normalized() Address {
	a.Country = strings.ToUpper(a.Country)
	if a.Country == "US" && a.State != nil {
		state := strings.ToUpper(strings.TrimSpace(*a.State))
		a.State = &state
	}
	return a
}

// encodeInput is the stored form of an input.
func encodeInput(in Input) (string, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("encode shipment input: %w", err)
	}
	return string(raw), nil
}

// errInputUndecodable marks a stored request that does not decode.
var errInputUndecodable = errors.New("stored shipment request does not decode")

// DecodeInput reads a stored request. Unknown fields or missing required
// parts are an error, never a zero value.
func DecodeInput(raw string) (Input, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	var in Input
	if err := dec.Decode(&in); err != nil {
		return Input{}, fmt.Errorf("%w: %w", errInputUndecodable, err)
	}
	if in.From.Street1 == "" || in.To.Street1 == "" || !in.Parcel.weighed() {
		return Input{}, fmt.Errorf("%w: addresses or parcel missing", errInputUndecodable)
	}
	return in, nil
}

// CarrierShipment is the input as the carrier port takes it.
func (in Input) CarrierShipment() carriers.Shipment {
	s := carriers.Shipment{
		From:   CarrierAddress(in.From),
		To:     CarrierAddress(in.To),
		Parcel: carrierParcel(in.Parcel),
	}
	for _, p := range in.Parcels {
		s.Pieces = append(s.Pieces, carrierParcel(p))
	}
	if in.Options != nil {
		s.Options.SignatureConfirmation = deref(in.Options.SignatureConfirmation)
	}
	if c := in.Customs; c != nil {
		cc := &carriers.Customs{ContentsType: c.ContentsType, ContentsExplanation: deref(c.ContentsExplanation), NonDeliveryOption: carriers.NonDeliveryReturn}
		if c.NonDeliveryOption != nil {
			cc.NonDeliveryOption = *c.NonDeliveryOption
		}
		for _, it := range c.Items {
			cc.Items = append(cc.Items, carriers.CustomsItem{
				Description: it.Description, Quantity: it.Quantity, ValueCents: it.ValueCents, WeightOz: it.ounces(),
				HSTariffNumber: deref(it.HSTariffNumber), OriginCountry: strings.ToUpper(deref(it.OriginCountry)),
			})
		}
		cc.Incoterm, cc.EELPFC, cc.InvoiceNumber = strings.ToUpper(deref(c.Incoterm)), deref(c.EELPFC), deref(c.InvoiceNumber)
		cc.ImporterTaxID, cc.ExporterTaxID = deref(c.ImporterTaxID), deref(c.ExporterTaxID)
		cc.ExporterEORI, cc.ImporterVAT, cc.IOSS = strings.ToUpper(deref(c.ExporterEORI)), deref(c.ImporterVAT), strings.ToUpper(deref(c.IOSS))
		s.Customs = cc
	}
	return s
}

func CarrierAddress(a Address) carriers.Address {
	return carriers.Address{
		Name: deref(a.Name), Company: deref(a.Company), Street1: a.Street1, Street2: deref(a.Street2),
		City: a.City, State: deref(a.State), Zip: a.Zip, Country: strings.ToUpper(a.Country),
		Phone: deref(a.Phone), Email: deref(a.Email), Residential: deref(a.Residential),
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// optional turns "" into an absent field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
