package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/shipd-dev/shipd/carriers/verifier"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/paging"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/addresses"
	"github.com/shipd-dev/shipd/webhooks"
)

// This file maps the domain's types to the contract's and back; the one
// place that knows both.

// ShipmentEventData renders a shipment as event data: exactly what
// GET /labels/{id} returns. The wiring gives it to the shipping service.
func ShipmentEventData(publicURL string) shipping.EventEncoder {
	return func(sh shipping.Shipment) (json.RawMessage, error) {
		return json.Marshal(shipmentView(publicURL, sh))
	}
}

func (s *Server) shipment(ctx context.Context, sh shipping.Shipment) gen.Shipment {
	return shipmentView(s.base(ctx), sh)
}

// shipmentView is a shipment as the API shows it; tracking events are part
// of the detail view only.
func shipmentView(publicURL string, sh shipping.Shipment) gen.Shipment {
	in := sh.Input
	v := gen.Shipment{
		Id: sh.ID, Mode: gen.Mode(sh.Mode), CreatedAt: sh.CreatedAt, UpdatedAt: sh.UpdatedAt,
		Status: gen.ShipmentStatus(sh.Status), Carrier: sh.Carrier, Service: sh.Service,
		ServiceCategory: gen.ServiceCategory(sh.ServiceCategory), CarrierRateCents: sh.CarrierRateCents,
		PlatformFeeCents: sh.PlatformFeeCents, CustomerPriceCents: sh.CustomerPriceCents,
		BalanceAppliedCents: sh.BalanceAppliedCents, ChargeAmountCents: sh.ChargeAmountCents,
		Currency: sh.Currency, EstimatedDays: &sh.EstimatedDays, Source: sh.Source,
		ToName: in.To.Name, ToStreet1: in.To.Street1,
		FromAddress: addressView(in.From), ToAddress: addressView(in.To), Parcel: parcelView(in.Parcel),
		Options: optionsView(in.Options), Customs: customsView(in.Customs),
		TrackingNumber: sh.TrackingNumber, TrackerId: sh.TrackerID, ErrorMessage: sh.ErrorMessage,
		PurchasedAt: sh.PurchasedAt, VoidedAt: sh.VoidedAt, IsReturn: sh.IsReturn, ReturnOf: sh.ReturnOf, BatchId: sh.BatchID,
		CarrierCurrency: sh.CarrierCurrency, CarrierAmountCents: sh.CarrierAmountCents, ExchangeRate: sh.ExchangeRate,
	}
	if sh.ManifestID != nil {
		v.ManifestId = nullable.NewNullableWithValue(*sh.ManifestID)
	}
	if sh.EstimatedDeliveryDate != nil {
		v.EstimatedDeliveryDate = &openapi_types.Date{Time: *sh.EstimatedDeliveryDate}
		v.Guaranteed = sh.Guaranteed
	}
	if sh.TrackingStatus != nil {
		ts := gen.TrackerStatus(*sh.TrackingStatus)
		v.TrackingStatus = &ts
	}
	if sh.HasLabel {
		u := labelURL(publicURL, sh.ID, sh.LabelFormat)
		v.LabelUrl = &u
	}
	if sh.LabelFormat != "" {
		f, size := gen.LabelFormat(sh.LabelFormat), gen.LabelSize(sh.LabelSize)
		v.LabelFormat, v.LabelSize = &f, &size
	}
	v.Parcels, v.Packages = piecesView(in.Parcels, sh.Packages)
	if sh.Detail {
		list := trackingEventViews(sh.TrackingEvents)
		v.TrackingEvents = &list
	}
	v.Object = gen.ShipmentObjectShipment
	return v
}

func trackingEventViews(events []shipping.TrackingEvent) []gen.TrackingEvent {
	out := make([]gen.TrackingEvent, len(events))
	for i, e := range events {
		out[i] = gen.TrackingEvent{Status: gen.TrackerStatus(e.Status), Message: e.Message, Location: optional(e.Location), OccurredAt: e.OccurredAt, TrackingNumber: e.TrackingNumber}
	}
	return out
}

func addressView(a shipping.Address) gen.Address {
	return gen.Address{
		Name: a.Name, Company: a.Company, Street1: a.Street1, Street2: a.Street2, City: a.City, State: a.State,
		Zip: a.Zip, Country: a.Country, Phone: a.Phone, Email: a.Email, Residential: a.Residential,
	}
}

func addressInput(a gen.Address) shipping.Address {
	return shipping.Address{
		Name: a.Name, Company: a.Company, Street1: a.Street1, Street2: a.Street2, City: a.City, State: a.State,
		Zip: a.Zip, Country: a.Country, Phone: a.Phone, Email: a.Email, Residential: a.Residential,
	}
}

func parcelInput(p gen.Parcel) shipping.Parcel {
	return shipping.Parcel{LengthIn: p.LengthIn, WidthIn: p.WidthIn, HeightIn: p.HeightIn, WeightOz: p.WeightOz,
		LengthCm: p.LengthCm, WidthCm: p.WidthCm, HeightCm: p.HeightCm, WeightG: p.WeightG}
}

// parcelView shows a parcel as it was sent: in inches and ounces or in
// centimetres and grams.
func parcelView(p shipping.Parcel) gen.Parcel {
	return gen.Parcel{LengthIn: p.LengthIn, WidthIn: p.WidthIn, HeightIn: p.HeightIn, WeightOz: p.WeightOz,
		LengthCm: p.LengthCm, WidthCm: p.WidthCm, HeightCm: p.HeightCm, WeightG: p.WeightG}
}

func optionsView(o *shipping.Options) *gen.Options {
	if o == nil {
		return nil
	}
	return &gen.Options{SignatureConfirmation: o.SignatureConfirmation}
}

func customsView(c *shipping.Customs) *gen.Customs {
	if c == nil {
		return nil
	}
	v := &gen.Customs{ContentsType: gen.CustomsContentsType(c.ContentsType), ContentsExplanation: c.ContentsExplanation, Items: make([]gen.CustomsItem, len(c.Items))}
	if c.NonDeliveryOption != nil {
		o := gen.CustomsNonDeliveryOption(*c.NonDeliveryOption)
		v.NonDeliveryOption = &o
	}
	v.EelPfc, v.InvoiceNumber, v.ImporterTaxId, v.ExporterTaxId = c.EELPFC, c.InvoiceNumber, c.ImporterTaxID, c.ExporterTaxID
	v.ExporterEori, v.ImporterVat, v.Ioss = c.ExporterEORI, c.ImporterVAT, c.IOSS
	if c.Incoterm != nil {
		t := gen.CustomsIncoterm(strings.ToUpper(*c.Incoterm))
		v.Incoterm = &t
	}
	for i, it := range c.Items {
		v.Items[i] = gen.CustomsItem{Description: it.Description, Quantity: it.Quantity, ValueCents: it.ValueCents,
			WeightOz: it.WeightOz, WeightG: it.WeightG, HsTariffNumber: it.HSTariffNumber, OriginCountry: it.OriginCountry}
	}
	return v
}

// shipmentInput is a request's shipment as the domain takes it.
// A parcel or parcels left out is a zero value or nil, which the domain
// completes from returnOf or refuses (one of the two is required).
func shipmentInput(from, to gen.Address, p *gen.Parcel, ps *[]gen.Parcel, o *gen.Options, c *gen.Customs) shipping.Input {
	in := shipping.Input{From: addressInput(from), To: addressInput(to)}
	if p != nil {
		in.Parcel = parcelInput(*p)
	}
	if ps != nil {
		in.Parcels = make([]shipping.Parcel, len(*ps))
		for i, p := range *ps {
			in.Parcels[i] = parcelInput(p)
		}
	}
	if o != nil {
		in.Options = &shipping.Options{SignatureConfirmation: o.SignatureConfirmation}
	}
	if c != nil {
		cc := &shipping.Customs{ContentsType: string(c.ContentsType), ContentsExplanation: c.ContentsExplanation, Items: make([]shipping.CustomsItem, len(c.Items))}
		if c.NonDeliveryOption != nil {
			o := string(*c.NonDeliveryOption)
			cc.NonDeliveryOption = &o
		}
		cc.EELPFC, cc.InvoiceNumber, cc.ImporterTaxID, cc.ExporterTaxID = c.EelPfc, c.InvoiceNumber, c.ImporterTaxId, c.ExporterTaxId
		cc.ExporterEORI, cc.ImporterVAT, cc.IOSS = c.ExporterEori, c.ImporterVat, c.Ioss
		if c.Incoterm != nil {
			t := string(*c.Incoterm)
			cc.Incoterm = &t
		}
		for i, it := range c.Items {
			cc.Items[i] = shipping.CustomsItem{Description: it.Description, Quantity: it.Quantity, ValueCents: it.ValueCents,
				WeightOz: it.WeightOz, WeightG: it.WeightG, HSTariffNumber: it.HsTariffNumber, OriginCountry: it.OriginCountry}
		}
		in.Customs = cc
	}
	return in
}

func rateView(r shipping.Rate) gen.Rate {
	v := gen.Rate{
		Carrier: r.Carrier, Service: r.Service, ServiceCategory: gen.ServiceCategory(r.ServiceCategory),
		CarrierRateCents: r.CarrierRateCents, PlatformFeeCents: r.PlatformFeeCents, CustomerPriceCents: r.CustomerPriceCents,
		Currency: r.Currency, EstimatedDays: r.EstimatedDays,
		EstimatedDeliveryDate: &openapi_types.Date{Time: r.EstimatedDeliveryDate}, Guaranteed: &r.Guaranteed,
		CarrierAccountId: optional(r.CarrierAccountID),
		DutiesCents:      positive(r.DutiesCents),
		// Always an array: [] says the shipment can be bought at the rate.
		MissingFields: append([]string{}, r.MissingFields...),
	}
	if r.CarrierCurrency != "" {
		v.CarrierCurrency, v.CarrierAmountCents, v.ExchangeRate = &r.CarrierCurrency, &r.CarrierAmountCents, &r.ExchangeRate
	}
	return v
}

// positive is v, or nil (absent) when it is 0.
func positive(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

// deliverBy is the request's deliverBy as the domain takes it; nil when absent.
func deliverBy(d *gen.DeliverBy) *time.Time {
	if d == nil {
		return nil
	}
	t := d.Time
	return &t
}

// carrierErrorViews are carriers' failures as the API shows them; nil (absent) when none failed.
func carrierErrorViews(failures []shipping.CarrierFailure) *[]gen.CarrierError {
	if len(failures) == 0 {
		return nil
	}
	out := make([]gen.CarrierError, len(failures))
	for i, f := range failures {
		out[i] = gen.CarrierError{Carrier: f.Carrier, Kind: gen.CarrierErrorKind(f.Kind), Code: optional(f.Code), Message: f.Message}
	}
	return &out
}

func savedAddressView(a addresses.SavedAddress) gen.SavedAddress {
	return gen.SavedAddress{
		Id: a.ID, Mode: gen.Mode(a.Mode), CreatedAt: a.CreatedAt,
		Name: a.Address.Name, Company: a.Address.Company, Street1: a.Address.Street1, Street2: a.Address.Street2,
		City: a.Address.City, State: a.Address.State, Zip: a.Address.Zip, Country: a.Address.Country,
		Phone: a.Address.Phone, Email: a.Address.Email, Residential: a.Address.Residential,
	}
}

func verificationView(r verifier.Result) gen.AddressVerification {
	a := r.Address
	out := gen.AddressVerification{
		Status: gen.AddressVerificationStatus(r.Status), Deliverable: r.Deliverable,
		Address: gen.Address{
			Name: optional(a.Name), Company: optional(a.Company), Street1: a.Street1, Street2: optional(a.Street2),
			City: a.City, State: optional(a.State), Zip: a.Zip, Country: a.Country,
			Phone: optional(a.Phone), Email: optional(a.Email), Residential: a.Residential,
		},
		Messages: make([]gen.VerificationMessage, len(r.Messages)),
	}
	for i, m := range r.Messages {
		out.Messages[i] = gen.VerificationMessage{Code: m.Code, Field: optional(m.Field), Message: m.Message}
	}
	return out
}

// eventView is an event of the history with its deliveries counted; its data
// was rendered when the event was recorded (ShipmentEventData) and is
// passed on as it was stored.
func eventView(ev webhooks.Event) (gen.EventRecord, error) {
	var data map[string]any
	if err := json.Unmarshal(ev.Data, &data); err != nil {
		return gen.EventRecord{}, fmt.Errorf("event %s data: %w", ev.ID, err)
	}
	sum := ev.Deliveries
	return gen.EventRecord{
		Id: ev.ID, Type: ev.Type, ApiVersion: ev.APIVersion, CreatedAt: ev.CreatedAt, Data: data,
		Deliveries: gen.DeliverySummary{Total: sum.Total, Pending: sum.Pending, Delivered: sum.Delivered, Failed: sum.Failed},
	}, nil
}

func subscriptionView(sub webhooks.Subscription) gen.WebhookSubscription {
	desc := nullable.NewNullNullable[string]()
	if sub.Description != nil {
		desc = nullable.NewNullableWithValue(*sub.Description)
	}
	return gen.WebhookSubscription{
		Id: sub.ID, Mode: gen.Mode(sub.Mode), Url: sub.URL, Events: sub.Events,
		Description: desc, Enabled: sub.Enabled, CreatedAt: sub.CreatedAt,
	}
}

func deliveryView(d webhooks.Delivery) gen.WebhookDelivery {
	v := gen.WebhookDelivery{
		Id: d.ID, SubscriptionId: d.SubscriptionID, EventId: d.EventID, EventType: d.EventType,
		Status: gen.WebhookDeliveryStatus(d.Status), Attempts: d.Attempts, AutomaticAttempts: &d.AutomaticAttempts, CreatedAt: d.CreatedAt,
		NextAttemptAt: d.NextAttemptAt, AttemptLog: make([]gen.DeliveryAttempt, len(d.Log)),
	}
	for i, a := range d.Log {
		v.AttemptLog[i] = gen.DeliveryAttempt{AttemptedAt: a.AttemptedAt, ResponseStatus: a.ResponseStatus, LatencyMs: a.LatencyMs, Error: a.Error, AutomaticAttempt: a.AutomaticAttempt, ResponseExcerpt: a.ResponseExcerpt}
	}
	return v
}

// nextCursor is the cursor of the page after rows, null on the last page.
func nextCursor[T any](rows []T, more bool, id func(T) string) nullable.Nullable[string] {
	if !more || len(rows) == 0 {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(paging.Encode(id(rows[len(rows)-1])))
}

// optional turns "" into an absent field.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
