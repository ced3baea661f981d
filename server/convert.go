package server

import (
	"encoding/json"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/store"
)

// shipmentInput is a shipment's input as stored (store.Shipment.Request).
type shipmentInput struct {
	FromAddress gen.Address  `json:"fromAddress"`
	ToAddress   gen.Address  `json:"toAddress"`
	Parcel      gen.Parcel   `json:"parcel"`
	Options     *gen.Options `json:"options,omitempty"`
	Customs     *gen.Customs `json:"customs,omitempty"`
}

func (in shipmentInput) carrierShipment() carriers.Shipment {
	s := carriers.Shipment{
		From:   carrierAddress(in.FromAddress),
		To:     carrierAddress(in.ToAddress),
		Parcel: carriers.Parcel{WeightOz: in.Parcel.WeightOz, LengthIn: deref(in.Parcel.LengthIn), WidthIn: deref(in.Parcel.WidthIn), HeightIn: deref(in.Parcel.HeightIn)},
	}
	if in.Options != nil {
		s.Options.SignatureConfirmation = deref(in.Options.SignatureConfirmation)
	}
	if c := in.Customs; c != nil {
		cc := &carriers.Customs{ContentsType: string(c.ContentsType), ContentsExplanation: deref(c.ContentsExplanation), NonDeliveryOption: "return"}
		if c.NonDeliveryOption != nil {
			cc.NonDeliveryOption = string(*c.NonDeliveryOption)
		}
		for _, it := range c.Items {
			cc.Items = append(cc.Items, carriers.CustomsItem{
				Description: it.Description, Quantity: it.Quantity, ValueCents: it.ValueCents, WeightOz: it.WeightOz,
				HSTariffNumber: deref(it.HsTariffNumber), OriginCountry: strings.ToUpper(deref(it.OriginCountry)),
			})
		}
		s.Customs = cc
	}
	return s
}

func carrierAddress(a gen.Address) carriers.Address {
	return carriers.Address{
		Name: deref(a.Name), Company: deref(a.Company), Street1: a.Street1, Street2: deref(a.Street2),
		City: a.City, State: deref(a.State), Zip: a.Zip, Country: strings.ToUpper(a.Country),
		Phone: deref(a.Phone), Email: deref(a.Email), Residential: deref(a.Residential),
	}
}

func decodeInput(s store.Shipment) shipmentInput {
	var in shipmentInput
	_ = json.Unmarshal([]byte(s.Request), &in) // written by CreateLabel from a validated body
	return in
}

// shipmentView is a shipment as GET /labels/{id} returns it; events are
// included only for the detail view and event data.
func (s *Server) shipmentView(sh store.Shipment, events []store.TrackingEvent, withEvents bool) gen.Shipment {
	in := decodeInput(sh)
	v := gen.Shipment{
		Id: sh.ID, Mode: gen.Mode(sh.Mode), CreatedAt: sh.CreatedAt, UpdatedAt: sh.UpdatedAt,
		Status: gen.ShipmentStatus(sh.Status), Carrier: sh.Carrier, Service: sh.Service,
		ServiceCategory: gen.ServiceCategory(sh.ServiceCategory), CarrierRateCents: sh.CarrierRateCents,
		PlatformFeeCents: sh.PlatformFeeCents, CustomerPriceCents: sh.CustomerPriceCents,
		BalanceAppliedCents: sh.BalanceAppliedCents, ChargeAmountCents: sh.ChargeAmountCents,
		Currency: sh.Currency, EstimatedDays: &sh.EstimatedDays, Source: sh.Source,
		ToName: in.ToAddress.Name, ToStreet1: in.ToAddress.Street1,
		FromAddress: in.FromAddress, ToAddress: in.ToAddress, Parcel: in.Parcel, Options: in.Options, Customs: in.Customs,
		TrackingNumber: sh.TrackingNumber, TrackerId: sh.TrackerID, ErrorMessage: sh.ErrorMessage,
		PurchasedAt: sh.PurchasedAt, VoidedAt: sh.VoidedAt,
	}
	if sh.TrackingStatus != nil {
		ts := gen.TrackerStatus(*sh.TrackingStatus)
		v.TrackingStatus = &ts
	}
	if sh.LabelKey != nil {
		u := s.labelURL(sh.ID)
		v.LabelUrl = &u
	}
	if withEvents {
		list := trackingEventViews(events)
		v.TrackingEvents = &list
	}
	return v
}

func (s *Server) labelURL(id string) string {
	return strings.TrimRight(s.cfg.PublicURL, "/") + BasePath + "/labels/" + id + "/label.pdf"
}

func trackingEventViews(events []store.TrackingEvent) []gen.TrackingEvent {
	out := make([]gen.TrackingEvent, len(events))
	for i, e := range events {
		out[i] = gen.TrackingEvent{Status: gen.TrackerStatus(e.Status), Message: e.Message, Location: optional(e.Location), OccurredAt: e.OccurredAt}
	}
	return out
}
