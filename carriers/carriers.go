// Package carriers holds the carrier-neutral domain types and the Carrier
// interface that the rating and purchase flows consume. Concrete carriers
// (the sandbox, and later live integrations) live in sub-packages so the
// purchase flow never depends on any one carrier's wire format.
package carriers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Address is a postal address as given by the API caller.
type Address struct {
	Name, Company, Street1, Street2, City, State, Zip, Country, Phone, Email string
	Residential                                                              bool
}

// Parcel is the package being shipped. Dimensions of 0 mean "not given".
// The inch and ounce fields always hold its size and weight; a parcel given
// in centimetres and grams has them as their exact conversions, and keeps
// what was given in Metric, which a carrier that works in metric reads
// (MetricOf) so that no conversion there and back comes before its own.
type Parcel struct {
	LengthIn, WidthIn, HeightIn float64
	WeightOz                    float64
	// Metric is the parcel as given in centimetres and grams; nil for one
	// given in inches and ounces.
	Metric *MetricParcel
}

// MetricParcel is a parcel's size and weight in centimetres and grams.
type MetricParcel struct {
	LengthCm, WidthCm, HeightCm float64
	WeightG                     float64
}

// Exact conversions: the inch is 2.54 cm and the avoirdupois ounce
// 28.349523125 g by definition.
const (
	CmPerInch     = 2.54
	GramsPerOunce = 28.349523125
)

// MetricParcelOf is a parcel given in centimetres and grams, its inch and
// ounce fields their exact conversions.
func MetricParcelOf(m MetricParcel) Parcel {
	return Parcel{LengthIn: m.LengthCm / CmPerInch, WidthIn: m.WidthCm / CmPerInch, HeightIn: m.HeightCm / CmPerInch,
		WeightOz: m.WeightG / GramsPerOunce, Metric: &m}
}

// MetricOf is p in centimetres and grams: as given, or converted from
// inches and ounces.
func MetricOf(p Parcel) MetricParcel {
	if p.Metric != nil {
		return *p.Metric
	}
	return MetricParcel{LengthCm: p.LengthIn * CmPerInch, WidthCm: p.WidthIn * CmPerInch, HeightCm: p.HeightIn * CmPerInch,
		WeightG: p.WeightOz * GramsPerOunce}
}

// CustomsItem is one line of a customs declaration.
type CustomsItem struct {
	Description    string
	Quantity       int
	ValueCents     int64
	WeightOz       float64
	HSTariffNumber string
	OriginCountry  string
}

// Customs contents types.
const (
	ContentsMerchandise   = "merchandise"
	ContentsDocuments     = "documents"
	ContentsGift          = "gift"
	ContentsReturnedGoods = "returned_goods"
	ContentsSample        = "sample"
	ContentsOther         = "other"
)

// Customs non-delivery options.
const (
	NonDeliveryReturn  = "return"
	NonDeliveryAbandon = "abandon"
)

// Customs is the declaration required for international destinations.
type Customs struct {
	ContentsType        string // merchandise|documents|gift|returned_goods|sample|other
	ContentsExplanation string
	NonDeliveryOption   string // return|abandon
	Items               []CustomsItem
	// Incoterm is IncotermDAP or IncotermDDP ("" is DAP): who pays duties.
	Incoterm string
	// EELPFC is the US export filing: an exemption legend (NOEEI 30.37(a))
	// or "AES " and the ITN; EEL() gives the default for a US export.
	EELPFC string
	// InvoiceNumber is the commercial invoice's number ("" lets the
	// carrier or the renderer choose: the shipd shipment id).
	InvoiceNumber string
	// ImporterTaxID and ExporterTaxID are the parties' tax ids (VAT, EORI, EIN).
	ImporterTaxID, ExporterTaxID string
	// ExporterEORI is the exporter's EORI number (EU or UK Economic
	// Operators Registration and Identification), ImporterVAT the
	// importer's VAT registration, and IOSS the seller's EU Import
	// One-Stop Shop number (IM and 10 digits), under which the VAT of a
	// low-value EU import was collected at sale. "" when not declared; a
	// carrier that takes registration numbers by kind sends each as its
	// kind (DHL Express's registrationNumbers EOR, VAT and SDT).
	ExporterEORI, ImporterVAT, IOSS string
}

// Options are extra services requested for a shipment.
type Options struct {
	SignatureConfirmation bool
}

// Shipment is everything a carrier needs to rate and buy a label.
type Shipment struct {
	From, To Address
	Parcel   Parcel
	// Pieces are every piece of a multi-piece shipment (pieces.go), Parcel
	// being the first; nil for a single parcel. Only a CapMultiPiece carrier is
	// asked to rate or buy a shipment with pieces.
	Pieces  []Parcel
	Options Options
	Customs *Customs
	// ShipDate is the day the parcel leaves (ShipDate(now) of the caller's
	// clock), from which delivery dates count; zero: the carrier's own today.
	ShipDate time.Time
	// Return asks for a return label: From is the customer who sends the
	// parcel back, To the merchant. A carrier quotes and buys it with its
	// own return service (CapReturns), and it is paid for when first used.
	Return bool
}

// Service categories (tiers). Callers select by category when they do not
// care about a specific carrier service.
const (
	CategoryEconomy   = "economy"
	CategoryStandard  = "standard"
	CategoryExpress   = "express"
	CategoryOvernight = "overnight"
)

// Categories lists every service category from slowest to fastest.
func Categories() []string {
	return []string{CategoryEconomy, CategoryStandard, CategoryExpress, CategoryOvernight}
}

// Rate is one quoted price for one carrier service.
type Rate struct {
	Carrier          string
	Service          string
	ServiceCategory  string
	CarrierRateCents int64
	Currency         string // "USD"
	EstimatedDays    int
	// EstimatedDeliveryDate is the date the carrier commits to or
	// estimates (a calendar date at midnight UTC); zero when the carrier
	// gave none, and the caller computes one from EstimatedDays.
	EstimatedDeliveryDate time.Time
	// Guaranteed: the carrier guarantees EstimatedDeliveryDate.
	Guaranteed bool
	// DutiesCents is the part of CarrierRateCents that is the destination's
	// duties and taxes, quoted for a DDP shipment (landed cost); 0 when the
	// carrier quoted none.
	DutiesCents int64
	// ProductCode is the carrier's own code of the service (V01PAK), which
	// a rate sheet may name instead of Service; "" when it has none.
	ProductCode string
	// Unpriced: the carrier has no rating API (Descriptor.RatesFromSheet)
	// and answered the service as available without a price, which a rate
	// sheet gives (WithRateSheet); an unpriced rate is never quoted.
	Unpriced bool
}

// LabelFormat is the format of a label document.
type LabelFormat string

// Label formats: a PDF for any printer, a PNG image, or ZPL II for Zebra
// thermal printers (203 dpi 4x6 stock).
const (
	LabelPDF LabelFormat = "pdf"
	LabelPNG LabelFormat = "png"
	LabelZPL LabelFormat = "zpl"
)

// LabelFormats lists the formats, the default first.
func LabelFormats() []LabelFormat { return []LabelFormat{LabelPDF, LabelPNG, LabelZPL} }

// ContentType is the media type a document of the format is served with.
func (f LabelFormat) ContentType() string {
	switch f {
	case LabelPNG:
		return "image/png"
	case LabelZPL:
		return "application/zpl"
	}
	return "application/pdf"
}

// LabelSize is the page a label is printed on.
type LabelSize string

// Label sizes: the 4x6 inch label itself (100x150 mm thermal stock); or, PDF
// only, an A6 page (105x148 mm, the label printers of European shops), or
// the label on a US letter or an A4 page, for office printers.
const (
	Label4x6    LabelSize = "4x6"
	LabelLetter LabelSize = "letter"
	LabelA6     LabelSize = "a6"
	LabelA4     LabelSize = "a4"
)

// LabelSizes lists the sizes, the default first.
func LabelSizes() []LabelSize { return []LabelSize{Label4x6, LabelLetter, LabelA6, LabelA4} }

// PDFOnly reports whether the size is a PDF's page: every size but 4x6.
func (s LabelSize) PDFOnly() bool { return s != "" && s != Label4x6 }

// Label is the result of a purchase.
type Label struct {
	TrackingNumber string
	// Document is the label document in Format, as asked in
	// BuyRequest.LabelFormat.
	Document []byte
	// Format is Document's format; "" means a PDF.
	Format LabelFormat
	// CarrierShipmentID is the carrier's own identifier of the shipment when
	// it differs from the tracking number (UPS ShipmentIdentificationNumber);
	// it is kept with the shipment and given back in VoidRequest.
	CarrierShipmentID string
	// CustomsDocument is the customs paperwork the carrier returned with an
	// international label (its commercial invoice, a PDF); nil when it
	// returned none, and shipd renders its own.
	CustomsDocument []byte
	// Pieces are the tracking numbers of a multi-piece shipment's pieces in
	// the order of Shipment.Pieces, the first equal to TrackingNumber (the
	// master) where the carrier numbers the shipment by its first piece
	// (UPS, FedEx); a carrier whose shipment number is no piece's (DHL
	// Express's waybill, its pieces' JD numbers) gives every piece's own.
	// nil for a single parcel. Document holds a label per piece.
	Pieces []string
	// PieceDocuments, set instead of Document by a carrier that answers a
	// document per piece (FedEx), are each piece's label in Format, in the
	// order of Pieces; the purchase joins them into one.
	PieceDocuments [][]byte
}

// Doc is the label's document and its format (a PDF when Format is unset).
func (l Label) Doc() ([]byte, LabelFormat) {
	if l.Format == "" {
		return l.Document, LabelPDF
	}
	return l.Document, l.Format
}

// BuyRequest asks a carrier to purchase the label for a previously quoted rate.
type BuyRequest struct {
	// Reference is the shipd shipment id. Carriers treat it as an idempotency
	// key: the same reference always yields the same purchase, so the purchase
	// flow can retry after a crash or timeout without buying twice.
	Reference string
	Shipment  Shipment
	Rate      Rate
	TestMode  bool
	// LabelFormat is the document asked for ("" is a PDF), rendered or
	// fetched natively in that format, never converted from another.
	LabelFormat LabelFormat
	// LabelSize is the page ("" is 4x6); LabelLetter only with a PDF.
	LabelSize LabelSize
}

// Format is the label format asked for, LabelPDF when none was.
func (r BuyRequest) Format() LabelFormat {
	if r.LabelFormat == "" {
		return LabelPDF
	}
	return r.LabelFormat
}

// Size is the label size asked for, Label4x6 when none was.
func (r BuyRequest) Size() LabelSize {
	if r.LabelSize == "" {
		return Label4x6
	}
	return r.LabelSize
}

// Tracker statuses.
const (
	StatusUnknown            = "unknown"
	StatusPreTransit         = "pre_transit"
	StatusInTransit          = "in_transit"
	StatusOutForDelivery     = "out_for_delivery"
	StatusDelivered          = "delivered"
	StatusAvailableForPickup = "available_for_pickup"
	StatusReturnToSender     = "return_to_sender"
	StatusFailure            = "failure"
	StatusCancelled          = "cancelled"
)

// Statuses lists the whole tracker status vocabulary.
func Statuses() []string {
	return []string{
		StatusUnknown, StatusPreTransit, StatusInTransit, StatusOutForDelivery, StatusDelivered,
		StatusAvailableForPickup, StatusReturnToSender, StatusFailure, StatusCancelled,
	}
}

// TrackingScan is one carrier scan event.
type TrackingScan struct {
	Status, Message, Location string
	// TrackingNumber is the piece a scan is of, on a multi-piece shipment
	// when it is not of the shipment as a whole; "" otherwise.
	TrackingNumber string `json:",omitempty"`
	// After is the delay after the previous scan (for the first scan: after
	// the purchase). Relative delays let the caller schedule the scans from
	// whatever clock it trusts.
	After time.Duration
}

// VoidRequest asks a carrier to void (refund) a purchased label.
type VoidRequest struct {
	TrackingNumber    string
	CarrierShipmentID string // Label.CarrierShipmentID, "" when the carrier gave none
	Reference         string // the shipd shipment id
	// Pieces are the tracking numbers of every piece of a multi-piece
	// shipment (Label.Pieces), nil for a single parcel: a void voids them all.
	Pieces []string
}

// VoidStatus is what a carrier said to a void.
type VoidStatus string

const (
	// VoidConfirmed: the label is void and its cost refunded.
	VoidConfirmed VoidStatus = "confirmed"
	// VoidRequested: the carrier accepted a refund request that it settles
	// later (USPS). Asking again with the same request reports the current
	// state, so the caller polls until VoidConfirmed or ErrRejected.
	VoidRequested VoidStatus = "requested"
)

// Carrier is a connector: what the rating, purchase, tracking and
// end-of-day flows need from a carrier. Every connector has Rates, Buy and
// Void; the rest of its operations are the ones its Capabilities declare,
// and the others answer ErrNotSupported (a connector embeds Unsupported).
// A carrier's tracking comes either from a plan (CapTrackingPlan: the
// sandbox's simulated schedule) or from its tracking API, polled (CapTrack).
type Carrier interface {
	Name() string
	// Capabilities are what the connector does beyond Rates, Buy and Void.
	Capabilities() Capabilities
	Rates(ctx context.Context, s Shipment) ([]Rate, error)
	Buy(ctx context.Context, req BuyRequest) (Label, error)
	// Void voids a label: VoidConfirmed or VoidRequested, or an error that
	// wraps ErrRejected when the carrier refuses (outside its void window,
	// already manifested or scanned) and ErrUnavailable when it cannot answer now.
	Void(ctx context.Context, req VoidRequest) (VoidStatus, error)

	// Track (CapTrack) is what the carrier's tracking API says of a label now.
	Track(ctx context.Context, trackingNumber string) (TrackingUpdate, error)
	// TrackMany (CapTrackMany) asks about up to MaxTrackBatch numbers at
	// once, which costs one call of the carrier's budget instead of one per
	// label. Its error is the call's (every number failed alike); otherwise
	// the results are in the order of the numbers, each with its own error.
	TrackMany(ctx context.Context, trackingNumbers []string) ([]TrackResult, error)
	// MaxTrackBatch is the most numbers one TrackMany may carry.
	MaxTrackBatch() int
	// TrackingPlan (CapTrackingPlan) returns the scans a purchased label
	// will receive, in order, applied on schedule.
	TrackingPlan(ctx context.Context, s Shipment, trackingNumber string) ([]TrackingScan, error)
	// NumberPlan (CapNumberPlan) plans the scans of a number the carrier did
	// not issue, a package followed by a standalone tracker.
	NumberPlan(ctx context.Context, trackingNumber string) ([]TrackingScan, error)

	// SchedulePickup and CancelPickup (CapPickups): errors wrap ErrRejected
	// when the carrier refuses (no service at that address, a window too
	// short) and ErrUnavailable when it cannot answer now.
	SchedulePickup(ctx context.Context, req PickupRequest) (PickupConfirmation, error)
	CancelPickup(ctx context.Context, req PickupCancelRequest) error
	// FindPickup (CapFindPickup) returns the pickup the carrier booked
	// under req.Reference and has not cancelled; found is false when there
	// is none. No carrier takes an idempotency key on pickups: a schedule
	// whose answer was lost asks this before booking again, so that it
	// adopts the pickup already booked instead of sending a second driver.
	// ErrNoPickupLookup: the carrier cannot tell for this pickup.
	FindPickup(ctx context.Context, req PickupRequest) (pickup PickupConfirmation, found bool, err error)
	// Manifest (CapManifests) makes the end-of-day form, or fails with an
	// error that wraps ErrRejected (the carrier refused the labels as given)
	// or ErrUnavailable (retry later).
	Manifest(ctx context.Context, req ManifestRequest) (ManifestForm, error)

	// FindPurchase (CapFindPurchase) returns the label the carrier sold for
	// req.Reference and has not voided; found is false when there is none.
	// The label's document is nil when the carrier cannot give it again
	// (FedEx). UPS and FedEx have no idempotency key: a purchase whose
	// answer was lost asks this before buying again, so that it adopts, or
	// voids, the label already sold instead of buying a second one blindly.
	FindPurchase(ctx context.Context, req BuyRequest) (label Label, found bool, err error)
	// CheckCredentials (CapCheckCredentials) fetches a token: nil when the
	// carrier granted one, a *Error of Operation "token" otherwise
	// (ErrFailed with the HTTP status when the carrier refused the
	// credentials, ErrUnavailable when it could not answer).
	CheckCredentials(ctx context.Context) error

	// MultiPieceService (CapMultiPiece) says whether service can ship
	// several pieces under one shipment. A shipment with Pieces is quoted
	// only by such services, since another would price and buy its first
	// box alone.
	MultiPieceService(service string) bool
	// ReturnService (CapReturns) says whether service can be bought as a
	// return label (Shipment.Return).
	ReturnService(service string) bool
}

// TrackResult is a carrier's answer for one number of a TrackMany.
type TrackResult struct {
	Update TrackingUpdate
	Err    error
}

// TrackingUpdate is what a carrier's tracking API says of one label now.
type TrackingUpdate struct {
	// Status is the label's current status in the tracker vocabulary
	// (StatusInTransit, ...), mapped from the carrier's own codes.
	Status              string
	EstimatedDeliveryAt *time.Time
	// Events are the carrier's scans, oldest first, each mapped to the
	// tracker vocabulary; the caller records the ones it has not seen.
	Events []TrackingEvent
}

// TrackingEvent is one scan reported by a carrier's tracking API.
type TrackingEvent struct {
	Status     string // tracker vocabulary
	Message    string
	Location   string
	OccurredAt time.Time
	// CarrierCode is the carrier's own status code, kept for support.
	CarrierCode string
	// TrackingNumber is the piece a scan is of, on a multi-piece shipment
	// when it is not the master; "" otherwise.
	TrackingNumber string
}

// PlausibleScanTime reports whether a carrier's scan time could be real: a
// time before 1970 is a zeroed field (year 1), so the answer is malformed.
func PlausibleScanTime(t time.Time) bool { return t.Year() >= 1970 }

// Sentinel errors. Carriers wrap them with %w and a message meant for humans,
// so callers classify with errors.Is and show err.Error().
var (
	// ErrUnavailable is transient: the carrier is temporarily unavailable and
	// the operation should be retried later.
	ErrUnavailable = errors.New("carrier temporarily unavailable")
	// ErrRejected is permanent: the carrier refused the operation. The
	// wrapping message is what users see as errorMessage.
	ErrRejected = errors.New("carrier rejected the request")
	// ErrCustomsRequired means the destination is international and the
	// shipment has no customs declaration.
	ErrCustomsRequired = errors.New("customs information is required for international shipments")
	// ErrNotConfigured means no carrier connection exists for the mode
	// (typically live mode before any carrier account is connected).
	ErrNotConfigured = errors.New("no carrier is configured for this mode")
	// ErrUnknownCarrier means Lookup found no carrier of that name in the mode.
	ErrUnknownCarrier = errors.New("unknown carrier")
	// ErrFailed means the carrier failed: a 5xx other than 503, an answer
	// that does not parse, or credentials it refuses. The API answers 502
	// carrier_error; a purchase that meets it fails.
	ErrFailed = errors.New("carrier failed")
	// ErrInvalidShipment is permanent: the shipment cannot be rated as given
	// (for example a non-positive weight). The API validates input first, so
	// seeing this usually means a caller bypassed validation.
	ErrInvalidShipment = errors.New("invalid shipment")
)

// Error is a carrier's own answer to a failed call, kept so that the API
// can show the carrier's code and message. Kind is one of the sentinels
// (ErrRejected, ErrUnavailable, ErrFailed), so errors.Is classifies it.
type Error struct {
	Carrier    string
	Operation  string // rate, buy, void, track, verify, token
	HTTPStatus int    // 0 when no HTTP answer was received
	Code       string // the carrier's error code, "" when it gave none
	Message    string // the carrier's message, or what was wrong with its answer
	// RetryAfter is the carrier's Retry-After, 0 when it gave none.
	RetryAfter time.Duration
	// Unreachable marks a call that got no answer because this server
	// cannot reach the carrier at all: its host name does not resolve, no
	// route leads there, or its TLS certificate is not trusted here. Kind
	// stays ErrUnavailable (a job retries; DNS comes back), but a caller
	// waiting on the answer is told it is the server's network, which a
	// retry in 30 seconds will not change.
	Unreachable bool
	Kind        error
}

func (e *Error) Error() string {
	msg := e.Carrier + " " + e.Operation + ": " + e.Message
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Kind }

// Registry holds the carriers of each mode. Test and live mode are kept
// apart because a test token must never reach a real carrier.
type Registry struct {
	test []Carrier
	live []Carrier
}

// NewRegistry returns a registry with the given test-mode and live-mode
// carriers. The slices are copied so later changes by the caller do not leak in.
func NewRegistry(test []Carrier, live []Carrier) *Registry {
	return &Registry{test: clone(test), live: clone(live)}
}

// For returns the carriers of the mode, or ErrNotConfigured when it has none.
func (r *Registry) For(testMode bool) ([]Carrier, error) {
	cs := r.live
	if testMode {
		cs = r.test
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s mode: %w", modeName(testMode), ErrNotConfigured)
	}
	return clone(cs), nil
}

// Lookup returns the carrier of the mode with the given name. Names compare
// case-insensitively because clients type them back from quote responses.
func (r *Registry) Lookup(testMode bool, name string) (Carrier, error) {
	cs, err := r.For(testMode)
	if err != nil {
		return nil, err
	}
	want := strings.TrimSpace(name)
	for _, c := range cs {
		if strings.EqualFold(c.Name(), want) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("carrier %q in %s mode: %w", name, modeName(testMode), ErrUnknownCarrier)
}

func modeName(testMode bool) string {
	if testMode {
		return "test"
	}
	return "live"
}

func clone(cs []Carrier) []Carrier {
	if len(cs) == 0 {
		return nil
	}
	return append([]Carrier(nil), cs...)
}

// DimDivisor is the domestic dimensional-weight divisor (cubic inches per
// pound) used by the major US carriers for retail and daily rates.
const DimDivisor = 139

// BillableWeightOz returns the weight carriers charge for: the larger of the
// actual weight and the dimensional weight. Carriers charge by volume as well
// as weight because a light but bulky box takes truck space. Without all
// three dimensions only the actual weight can be used.
func BillableWeightOz(p Parcel) float64 {
	actual := math.Max(p.WeightOz, 0)
	if p.LengthIn <= 0 || p.WidthIn <= 0 || p.HeightIn <= 0 {
		return actual
	}
	dimOz := p.LengthIn * p.WidthIn * p.HeightIn / DimDivisor * 16
	return math.Max(actual, dimOz)
}

// NormalizeCountry returns the upper-case two-letter country code, treating
// an empty country as "US": shipd began as a US shipping service, and
// clients written then omit the country of a domestic address.
func NormalizeCountry(c string) string {
	c = strings.ToUpper(strings.TrimSpace(c))
	if c == "" {
		return "US"
	}
	return c
}

// IsInternational reports whether the shipment crosses a border, i.e. the
// countries differ: carriers price and serve such a shipment with their
// international services. Whether it needs a customs declaration is
// CustomsRequired's question (not between two EU member states).
func IsInternational(from, to Address) bool {
	return NormalizeCountry(from.Country) != NormalizeCountry(to.Country)
}
