// Package sandbox provides the simulated carriers of test mode: a twin of
// each connector that declares a sandbox tariff (carriers.Descriptor.Sandbox),
// under its carrier's name, with its requirements and delivery days. They
// quote deterministic, plausible prices, issue stub tracking numbers and
// real (sample-marked) label PDFs, and simulate tracking, so integrators
// can exercise every path of the API without a carrier account.
// Outcomes can be forced with the values listed by Triggers.
package sandbox

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/connectors"
)

// Carrier names. They match the live carriers' names so a carrier/service
// pair chosen in test mode means the same thing in live mode.
const (
	CarrierUSPS  = "USPS"
	CarrierUPS   = "UPS"
	CarrierFedEx = "FedEx"
)

// DefaultScanInterval is the delay between simulated tracking scans: short
// enough to watch a label move to delivered in a demo, long enough that each
// webhook can be told apart.
const DefaultScanInterval = 3 * time.Second

// Config tunes the sandbox carriers.
type Config struct {
	// ScanInterval is the delay between tracking scans; <= 0 means
	// DefaultScanInterval.
	ScanInterval time.Duration
	// Now stamps the ship date on labels; nil means time.Now. Tests set it
	// to get byte-identical PDFs.
	Now func() time.Time
	// SlowDelay is how long a purchase and a void take under
	// TriggerSlowCarrier; <= 0 means DefaultSlowDelay.
	SlowDelay time.Duration
	// Catalog holds the live connectors the sandbox carriers imitate: their
	// requirements and delivery days; nil: connectors.Catalog().
	Catalog *carriers.Catalog
}

// DefaultSlowDelay is the delay of TriggerSlowCarrier: long enough for a
// client to see the intermediate states, short enough to wait for.
const DefaultSlowDelay = 3 * time.Second

// New returns the sandbox carriers, one per connector of cfg.Catalog with a
// sandbox tariff, in the catalog's order. Each call returns fresh instances
// with their own purchase state.
func New(cfg Config) []carriers.Carrier {
	if cfg.ScanInterval <= 0 {
		cfg.ScanInterval = DefaultScanInterval
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Catalog == nil {
		cfg.Catalog = connectors.Catalog()
	}
	var out []carriers.Carrier
	for _, d := range cfg.Catalog.Descriptors() {
		if d.Sandbox != nil {
			out = append(out, newCarrier(d, cfg))
		}
	}
	return out
}

type carrier struct {
	carriers.Unsupported
	// name is the carrier's (its descriptor's ID), t its sandbox tariff,
	// origins the countries it ships from (nil: any).
	name    string
	display string // printed on labels
	t       *carriers.SandboxTariff
	origins []string
	// requirements are the live carrier's (carriers.Descriptor.Requirements).
	requirements []carriers.Requirement
	cfg          Config

	mu sync.Mutex
	// bought remembers when each reference was purchased, so a retried Buy
	// returns the first purchase (the same tracking number, and the label
	// re-rendered with the first purchase's date, byte for byte) instead of
	// buying again. Only the date is kept, not the PDF. Sandbox state is in
	// memory only; after a restart the same reference still yields the same
	// tracking number because it is derived from the reference.
	bought map[string]time.Time
	// attempts counts Buy calls per reference for TriggerCarrierUnavailable.
	attempts map[string]int
	// slow remembers the tracking numbers bought under TriggerSlowCarrier, so
	// their void is slow too (Void sees only the tracking number).
	slow map[string]bool
	// refuseVoid remembers the tracking numbers bought under
	// TriggerVoidRejected, whose void the carrier refuses.
	refuseVoid map[string]bool
}

// wait sleeps for the slow trigger's delay unless ctx ends first.
func (c *carrier) wait(ctx context.Context) error {
	d := c.cfg.SlowDelay
	if d <= 0 {
		d = DefaultSlowDelay
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func newCarrier(d carriers.Descriptor, cfg Config) *carrier {
	return &carrier{
		name:         string(d.ID),
		display:      cmp.Or(d.DisplayName, string(d.ID)),
		t:            d.Sandbox,
		origins:      d.Origins,
		requirements: d.Requirements,
		cfg:          cfg,
		bought:       make(map[string]time.Time),
		attempts:     make(map[string]int),
		slow:         make(map[string]bool),
		refuseVoid:   make(map[string]bool),
	}
}

func (c *carrier) Name() string { return c.name }

// Capabilities are the sandbox's: every label's scans are planned at
// purchase, and the end-of-day and landed-cost steps are the live
// carrier's (tariff.capabilities).
func (c *carrier) Capabilities() carriers.Capabilities {
	return carriers.CapRates | carriers.CapBuy | carriers.CapVoid | carriers.CapTrackingPlan |
		carriers.CapNumberPlan | carriers.CapPickups | carriers.CapReturns | c.t.Capabilities
}

// ReturnService: the sandbox sells return labels where the live carrier
// does, so test mode refuses what live mode would. UPS and FedEx make
// returns on every service; USPS's return labels (Domestic Labels 3.0
// /return-label) are domestic only.
func (c *carrier) ReturnService(service string) bool {
	if !c.t.ReturnsDomesticOnly {
		return true
	}
	for _, s := range c.t.Domestic {
		if strings.EqualFold(s.Name, strings.TrimSpace(service)) {
			return true
		}
	}
	return false
}

// services returns the services that apply to the shipment: only
// international services cross a border, and an EU-only one only between
// two countries of the customs union.
func (c *carrier) services(s carriers.Shipment) []service {
	from := carriers.NormalizeCountry(carriers.Shipper(s).Country)
	sold := func(svc service) bool { return !slices.Contains(svc.NotFrom, from) }
	var out []service
	if !carriers.IsInternational(s.From, s.To) {
		for _, svc := range c.t.Domestic {
			if sold(svc) {
				out = append(out, svc)
			}
		}
		return out
	}
	withinEU := carriers.InEUCustomsUnion(s.From.Country) && !carriers.CustomsRequired(s.From, s.To)
	for _, svc := range c.t.International {
		if (!svc.EUOnly || withinEU) && sold(svc) {
			out = append(out, svc)
		}
	}
	return out
}

// ships reports whether the carrier serves the shipment's shipper, as its
// live connector does (carriers.Descriptor.Origins): the sender, or the
// merchant a return label goes back to.
func (c *carrier) ships(s carriers.Shipment) bool {
	return c.origins == nil || slices.Contains(c.origins, carriers.NormalizeCountry(carriers.Shipper(s).Country))
}

func (c *carrier) Rates(ctx context.Context, s carriers.Shipment) ([]carriers.Rate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The no-rates trigger wins over everything else so it behaves the same
	// whatever else the shipment contains.
	if noRatesZip(s.To.Zip) {
		return []carriers.Rate{}, nil
	}
	if matches(s.To.Name, TriggerCarrierError) {
		return nil, fmt.Errorf("sandbox: %s failed to quote (trigger: recipient name '%s')", c.name, TriggerCarrierError)
	}
	if matches(s.To.Name, TriggerCarriersDown) {
		return nil, fmt.Errorf("sandbox: %s is temporarily unavailable (trigger: recipient name '%s'): %w", c.name, TriggerCarriersDown, carriers.ErrUnavailable)
	}
	if matches(s.To.Name, TriggerCarriersUnreachable) {
		// As carriers.TransportError words a host name that does not resolve.
		return nil, &carriers.Error{Carrier: c.name, Operation: "rate", Kind: carriers.ErrUnavailable, Unreachable: true,
			Message: fmt.Sprintf("sandbox: %s could not be reached (its host name did not resolve) (trigger: recipient name '%s')", c.name, TriggerCarriersUnreachable)}
	}
	if err := c.checkShipment(s); err != nil {
		return nil, err
	}
	rates := []carriers.Rate{}
	if !c.ships(s) {
		// Not this carrier's country: no service, as the live carrier
		// offers none (the quote leaves the carrier out first).
		return rates, nil
	}
	var refused []carriers.LimitRefusal
	for _, svc := range c.services(s) {
		r, refusal, ok := c.rate(s, svc)
		if ok {
			rates = append(rates, r)
		} else if refusal != nil {
			refused = append(refused, *refusal)
		}
	}
	if len(rates) == 0 && len(refused) > 0 {
		// Every service the carrier has for the shipment refused the
		// parcel past a limit: say which, as a live carrier says why it
		// refuses, rather than answer nothing (carriers/limits.go).
		return nil, carriers.LimitsError(c.name, "rate", isMetric(s), refused)
	}
	return rates, nil
}

// isMetric reports whether the shipment's parcel was given in centimetres
// and grams, the units its limits are then named in.
func isMetric(s carriers.Shipment) bool { return s.AllPieces()[0].Metric != nil }

func (c *carrier) checkShipment(s carriers.Shipment) error {
	if s.Parcel.WeightOz <= 0 {
		return fmt.Errorf("sandbox: %s: parcel weight must be greater than 0 (got %g oz): %w",
			c.name, s.Parcel.WeightOz, carriers.ErrInvalidShipment)
	}
	if carriers.CustomsRequired(s.From, s.To) && s.Customs == nil {
		return fmt.Errorf("sandbox: %s: shipment from %s to %s: %w", c.name,
			carriers.NormalizeCountry(s.From.Country), carriers.NormalizeCountry(s.To.Country), carriers.ErrCustomsRequired)
	}
	// The sandbox refuses the addresses the live carriers refuse, so that an
	// integration tested here works live (the shipping flow checks the same
	// rules first and answers 422 with the field's path).
	for side, a := range map[string]carriers.Address{"sender": s.From, "recipient": s.To} {
		if ps := carriers.PostalProblems(a); len(ps) > 0 {
			return fmt.Errorf("sandbox: %s: the %s's %s %s: %w", c.name, side, ps[0].Field, ps[0].Message, carriers.ErrInvalidShipment)
		}
	}
	return nil
}

// rate prices one service, or reports false when the service does not
// take the shipment: with the limit it refused on when the parcel is too
// heavy or too large for it.
func (c *carrier) rate(s carriers.Shipment, svc service) (carriers.Rate, *carriers.LimitRefusal, bool) {
	z := c.zone(s)
	cents, refusal := c.piecesCents(s, svc, z)
	if refusal != nil {
		return carriers.Rate{}, refusal, false
	}
	duties, ok := c.duties(s) // duties.go
	if !ok {
		return carriers.Rate{}, nil, false
	}
	// The duties are of the declared value, in the declaration's currency:
	// the shipping price alone is the tariff's.
	currency, cents := c.priced(carriers.Shipper(s), cents)
	cents += duties
	days := days(svc, z, c.maxZone())
	ship := s.ShipDate
	if ship.IsZero() {
		ship = carriers.ShipDate(c.cfg.Now())
	}
	return carriers.Rate{
		Carrier:               c.name,
		Service:               svc.Name,
		ServiceCategory:       svc.Category,
		CarrierRateCents:      cents,
		Currency:              currency,
		EstimatedDays:         days,
		EstimatedDeliveryDate: carriers.DeliveryDate(ship, days, c.cfg.Catalog.DeliversSaturday(c.name)),
		Guaranteed:            svc.Guaranteed,
		DutiesCents:           duties,
	}, nil, true
}

func (c *carrier) Buy(ctx context.Context, req carriers.BuyRequest) (carriers.Label, error) {
	if err := ctx.Err(); err != nil {
		return carriers.Label{}, err
	}
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		// Without a reference a retry could not be told from a new purchase.
		return carriers.Label{}, fmt.Errorf("sandbox: %s: purchase has no reference: %w", c.name, carriers.ErrRejected)
	}

	c.mu.Lock()
	first, bought := c.bought[ref]
	c.mu.Unlock()
	if bought {
		// A retry: the first purchase's label, rendered again from its date.
		svc, err := c.checkPurchase(req)
		if err != nil {
			return carriers.Label{}, err
		}
		return c.label(req, svc, ref, first)
	}

	svc, err := c.checkPurchase(req)
	if err != nil {
		return carriers.Label{}, err
	}
	to := req.Shipment.To
	if matches(to.Name, TriggerFailPurchase) {
		return carriers.Label{}, fmt.Errorf("sandbox: %s rejected the purchase (trigger: recipient name '%s'): %w",
			c.name, TriggerFailPurchase, carriers.ErrRejected)
	}
	if matches(to.Name, TriggerCarrierUnavailable) {
		c.mu.Lock()
		c.attempts[ref]++
		n := c.attempts[ref]
		c.mu.Unlock()
		if n <= UnavailableFailures {
			return carriers.Label{}, fmt.Errorf("sandbox: %s is temporarily unavailable, attempt %d of %d fails (trigger: recipient name '%s'): %w",
				c.name, n, UnavailableFailures, TriggerCarrierUnavailable, carriers.ErrUnavailable)
		}
	}

	tn := c.trackingNumber(ref)
	if matches(to.Name, TriggerSlowCarrier) {
		if err := c.wait(ctx); err != nil {
			return carriers.Label{}, err
		}
		c.mu.Lock()
		c.slow[tn] = true
		c.mu.Unlock()
	}
	if matches(to.Name, TriggerVoidRejected) {
		c.mu.Lock()
		c.refuseVoid[tn] = true
		c.mu.Unlock()
	}
	date := c.cfg.Now()
	l, err := c.label(req, svc, ref, date)
	if err != nil {
		return carriers.Label{}, err
	}
	c.mu.Lock()
	first, bought = c.bought[ref]
	if !bought {
		c.bought[ref] = date
		delete(c.attempts, ref)
	}
	c.mu.Unlock()
	if bought && !first.Equal(date) {
		// A concurrent Buy for the same reference finished first; its label is the purchase.
		return c.label(req, svc, ref, first)
	}
	return l, nil
}

// label renders the label of reference ref bought on date; the same inputs
// give the same bytes, so a retried Buy needs only the date to return the
// first purchase's document.
func (c *carrier) label(req carriers.BuyRequest, svc service, ref string, date time.Time) (carriers.Label, error) {
	tn := c.trackingNumber(ref)
	in := LabelInput{
		Carrier:           c.display,
		Service:           svc.Label,
		TrackingNumber:    tn,
		From:              req.Shipment.From,
		To:                req.Shipment.To,
		WeightOz:          req.Shipment.Parcel.WeightOz,
		Metric:            req.Shipment.Parcel.Metric != nil || c.t.Zoning == carriers.ZonesEurope,
		Date:              date,
		SignatureRequired: req.Shipment.Options.SignatureConfirmation,
		CustomsContents:   customsContents(req.Shipment.Customs),
		CustomsForm:       postalForm(c.t, req.Shipment), // cn22.go
		Customs:           req.Shipment.Customs,
		Reference:         ref,
		Return:            req.Shipment.Return,
		// A sandbox label can never be shipped, whatever the request says,
		// so it is always marked as a sample.
		TestMode: true,
		Size:     req.Size(),
	}
	if len(req.Shipment.Pieces) > 1 {
		return c.piecesLabel(req, in) // pieces.go
	}
	// Each format is drawn natively, as a carrier's own would be.
	render := RenderLabel
	switch req.Format() {
	case carriers.LabelPNG:
		render = RenderPNG
	case carriers.LabelZPL:
		render = RenderZPL
	}
	doc, err := render(in)
	if err != nil {
		return carriers.Label{}, fmt.Errorf("sandbox: %s: rendering label: %w", c.name, err)
	}
	return carriers.Label{TrackingNumber: tn, Document: doc, Format: req.Format()}, nil
}

// checkPurchase validates what a real carrier would validate before buying
// and returns the service being bought.
func (c *carrier) checkPurchase(req carriers.BuyRequest) (service, error) {
	s := req.Shipment
	if !c.ships(s) {
		return service{}, fmt.Errorf("sandbox: %s does not ship from %s: %w", c.name, carriers.NormalizeCountry(carriers.Shipper(s).Country), carriers.ErrRejected)
	}
	if !strings.EqualFold(strings.TrimSpace(req.Rate.Carrier), c.name) {
		return service{}, fmt.Errorf("sandbox: %s cannot buy a %q rate: %w", c.name, req.Rate.Carrier, carriers.ErrRejected)
	}
	if err := c.checkShipment(s); err != nil {
		// Also ErrRejected, so a purchase flow that only knows "transient
		// or permanent" fails it for good and shows the reason.
		return service{}, fmt.Errorf("%w (%w)", err, carriers.ErrRejected)
	}
	var names []string
	for _, svc := range c.services(s) {
		if strings.EqualFold(svc.Name, strings.TrimSpace(req.Rate.Service)) {
			if _, refusal, ok := c.rate(s, svc); !ok {
				if refusal != nil {
					return service{}, fmt.Errorf("sandbox: %s %s: %w", c.name, svc.Name,
						carriers.LimitsError(c.name, "buy", isMetric(s), []carriers.LimitRefusal{*refusal}))
				}
				return service{}, fmt.Errorf("sandbox: %s %s does not quote duties (DDP) for this shipment: %w", c.name, svc.Name, carriers.ErrRejected)
			}
			// The live carrier's requirements (names, phone numbers), as the
			// live adapters check them.
			if err := carriers.CheckRequirements(c.name, c.requirements, svc.Name, s); err != nil {
				return service{}, fmt.Errorf("sandbox: %w", err)
			}
			return svc, nil
		}
		names = append(names, svc.Name)
	}
	return service{}, fmt.Errorf("sandbox: %s has no service %q for this shipment (available: %s): %w",
		c.name, req.Rate.Service, strings.Join(names, ", "), carriers.ErrRejected)
}

// trackingNumber derives the number from the reference so that a retried
// purchase, even after a restart, yields the same number.
func (c *carrier) trackingNumber(ref string) string {
	sum := sha256.Sum256([]byte(c.name + "\x00" + ref))
	a := binary.BigEndian.Uint64(sum[0:8]) % 1e10
	b := binary.BigEndian.Uint64(sum[8:16]) % 1e10
	return c.t.TrackingPrefix + fmt.Sprintf("%010d%010d", a, b)[:c.t.TrackingDigits]
}

func (c *carrier) ownsTrackingNumber(tn string) bool {
	return isSandboxNumber(c.t, strings.ToUpper(strings.TrimSpace(tn)))
}

// Void confirms at once (after the slow trigger's delay for a slow label),
// or refuses a label bought under TriggerVoidRejected.
func (c *carrier) Void(ctx context.Context, req carriers.VoidRequest) (carriers.VoidStatus, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	trackingNumber := req.TrackingNumber
	if !c.ownsTrackingNumber(trackingNumber) {
		return "", fmt.Errorf("sandbox: %s cannot void %q: not a %s sandbox tracking number: %w",
			c.name, trackingNumber, c.name, carriers.ErrRejected)
	}
	if err := c.checkPieces(req); err != nil {
		return "", err
	}
	key := strings.ToUpper(strings.TrimSpace(trackingNumber))
	c.mu.Lock()
	slow, refuse := c.slow[key], c.refuseVoid[key]
	c.mu.Unlock()
	if slow {
		if err := c.wait(ctx); err != nil {
			return "", err
		}
	}
	if refuse {
		return "", fmt.Errorf("sandbox: %s refused the void of %s: the label is outside its void window (trigger: recipient name '%s'): %w",
			c.name, trackingNumber, TriggerVoidRejected, carriers.ErrRejected)
	}
	return carriers.VoidConfirmed, nil
}

func (c *carrier) TrackingPlan(ctx context.Context, s carriers.Shipment, trackingNumber string) ([]carriers.TrackingScan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !c.ownsTrackingNumber(trackingNumber) {
		return nil, fmt.Errorf("sandbox: %s cannot track %q: not a %s sandbox tracking number: %w",
			c.name, trackingNumber, c.name, carriers.ErrRejected)
	}
	intl := carriers.IsInternational(s.From, s.To)
	origin, dest := location(s.From, intl), location(s.To, intl)
	every := c.cfg.ScanInterval
	scan := func(status, msg, loc string) carriers.TrackingScan {
		return carriers.TrackingScan{Status: status, Message: msg, Location: loc, After: every}
	}

	plan := []carriers.TrackingScan{
		scan(carriers.StatusPreTransit, "Shipping label created", origin),
		scan(carriers.StatusInTransit, "Departed origin facility", origin),
	}
	if s.Return {
		// A return label's first physical scan is the customer's drop-off,
		// the use that charges it (pay on use).
		plan = []carriers.TrackingScan{
			scan(carriers.StatusPreTransit, "Return label created", origin),
			scan(carriers.StatusInTransit, "Dropped off by the customer", origin),
		}
	}
	if intl {
		plan = append(plan, scan(carriers.StatusInTransit, "Cleared customs", carriers.NormalizeCountry(s.To.Country)))
	}
	plan = append(plan,
		scan(carriers.StatusInTransit, "Arrived at destination facility", dest),
		scan(carriers.StatusOutForDelivery, "Out for delivery", dest),
	)
	switch {
	case matches(s.To.Name, TriggerTrackingException):
		plan = append(plan, scan(carriers.StatusFailure, "Delivery exception: address not accessible", dest))
	case matches(s.To.Name, TriggerReturnToSender):
		plan = append(plan, scan(carriers.StatusReturnToSender, "Returned to sender: undeliverable as addressed", dest))
	case s.Options.SignatureConfirmation:
		plan = append(plan, scan(carriers.StatusDelivered, "Delivered, signed for by recipient", dest))
	default:
		plan = append(plan, scan(carriers.StatusDelivered, "Delivered", dest))
	}
	return c.piecesPlan(plan, s, trackingNumber), nil
}

// NumberPlan returns the scans of a number the sandbox did not issue (a
// standalone tracker of any package): the normal path with no places known,
// ending as the number's last digits say (TriggerNumberException,
// TriggerNumberReturn), else delivered.
func (c *carrier) NumberPlan(ctx context.Context, trackingNumber string) ([]carriers.TrackingScan, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	every := c.cfg.ScanInterval
	scan := func(status, msg string) carriers.TrackingScan {
		return carriers.TrackingScan{Status: status, Message: msg, After: every}
	}
	plan := []carriers.TrackingScan{
		scan(carriers.StatusPreTransit, "Shipping label created"),
		scan(carriers.StatusInTransit, "Departed origin facility"),
		scan(carriers.StatusInTransit, "Arrived at destination facility"),
		scan(carriers.StatusOutForDelivery, "Out for delivery"),
	}
	n := carriers.NormalizeTrackingNumber(trackingNumber)
	switch {
	case strings.HasSuffix(n, TriggerNumberException):
		plan = append(plan, scan(carriers.StatusFailure, "Delivery exception: address not accessible"))
	case strings.HasSuffix(n, TriggerNumberReturn):
		plan = append(plan, scan(carriers.StatusReturnToSender, "Returned to sender: undeliverable as addressed"))
	default:
		plan = append(plan, scan(carriers.StatusDelivered, "Delivered"))
	}
	return plan, nil
}

// location formats "City, ST" and adds the country only when the shipment
// crosses a border, where the state alone is ambiguous.
func location(a carriers.Address, withCountry bool) string {
	var parts []string
	for _, p := range []string{a.City, a.State} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if withCountry {
		parts = append(parts, carriers.NormalizeCountry(a.Country))
	}
	return strings.Join(parts, ", ")
}

func customsContents(c *carriers.Customs) string {
	if c == nil {
		return ""
	}
	if c.ContentsType == "" {
		return carriers.ContentsOther
	}
	return c.ContentsType
}
