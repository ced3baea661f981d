package dhlexpress

import "github.com/shipd-dev/shipd/carriers"

// service is one of DHL Express's products as shipd sells it, live and in
// its sandbox twin (sandbox.go) alike.
type service struct {
	// name is shipd's name of the service; label is DHL's product name
	// (productName in /rates, printed on the twin's labels).
	name, label, category string
	// dutiable and nonDutiable are MyDHL's global product codes of the
	// service for a shipment that is declared to customs
	// (isCustomsDeclarable: goods across a customs border) and for one that
	// is not (documents; goods between EU member states); "" where DHL
	// sells no such product.
	dutiable, nonDutiable string
	// days is the typical transit time, for an answer without one.
	days int
	// guaranteed: DHL guarantees the product's committed date (its
	// time-definite network, networkTypeCode TD); Economy Select is day
	// definite.
	guaranteed bool
}

// services are DHL Express's products shipd sells: the twin's, with the
// product codes /rates answers for them. DHL answers other products too
// (EXPRESS 10:30, EXPRESS EASY, the domestic time-definite ones, medical
// and breakbulk products) for some accounts and lanes; shipd does not
// offer those, and leaves them out of a quote.
var services = []service{
	{name: "DomesticExpress", label: "DOMESTIC EXPRESS", category: carriers.CategoryOvernight, dutiable: "N", nonDutiable: "N", days: 1, guaranteed: true},
	{name: "EconomySelect", label: "ECONOMY SELECT", category: carriers.CategoryEconomy, dutiable: "H", nonDutiable: "W", days: 4},
	{name: "ExpressWorldwideEU", label: "EXPRESS WORLDWIDE EU", category: carriers.CategoryExpress, nonDutiable: "U", days: 2, guaranteed: true},
	{name: "ExpressWorldwide", label: "EXPRESS WORLDWIDE", category: carriers.CategoryExpress, dutiable: "P", nonDutiable: "D", days: 3, guaranteed: true},
	{name: "Express1200", label: "EXPRESS 12:00", category: carriers.CategoryOvernight, dutiable: "Y", nonDutiable: "T", days: 2, guaranteed: true},
	{name: "Express900", label: "EXPRESS 9:00", category: carriers.CategoryOvernight, dutiable: "K", nonDutiable: "E", days: 2, guaranteed: true},
}

// serviceByName finds a service by shipd's name.
func serviceByName(name string) (service, bool) {
	for _, s := range services {
		if s.name == name {
			return s, true
		}
	}
	return service{}, false
}

// serviceByCode finds the service of a global product code.
func serviceByCode(code string) (service, bool) {
	for _, s := range services {
		if code != "" && (s.dutiable == code || s.nonDutiable == code) {
			return s, true
		}
	}
	return service{}, false
}

// ServiceInfo is a live service as shipd sells it, for the twin's tests
// and documents.
type ServiceInfo struct {
	Name, Label, Category string
	Guaranteed            bool
}

// LiveService describes the live service of shipd's name.
func LiveService(name string) (ServiceInfo, bool) {
	s, ok := serviceByName(name)
	return ServiceInfo{Name: s.name, Label: s.label, Category: s.category, Guaranteed: s.guaranteed}, ok
}

// ServiceNames lists the live services, in order.
func ServiceNames() []string { return serviceNames() }

// serviceNames lists shipd's names of the services, in order.
func serviceNames() []string {
	out := make([]string, len(services))
	for i, s := range services {
		out[i] = s.name
	}
	return out
}

// code is the product code of the service for a shipment declared to
// customs or not; "" when DHL sells none.
func (s service) code(declarable bool) string {
	if declarable {
		return s.dutiable
	}
	return s.nonDutiable
}

// ProductCode is MyDHL's global product code of a service for goods
// declared to customs ("P" for ExpressWorldwide), or, for a service sold
// only without a declaration, that code ("U"); "" for none.
func ProductCode(service string) string {
	s, ok := serviceByName(service)
	if !ok {
		return ""
	}
	if s.dutiable != "" {
		return s.dutiable
	}
	return s.nonDutiable
}

// ProductCodes are every global product code of a service ("P" and "D"
// for ExpressWorldwide), for documents and rate sheets.
func ProductCodes(service string) []string {
	s, ok := serviceByName(service)
	if !ok {
		return nil
	}
	var out []string
	for _, c := range []string{s.dutiable, s.nonDutiable} {
		if c != "" && (len(out) == 0 || out[0] != c) {
			out = append(out, c)
		}
	}
	return out
}

// MultiPieceService: every DHL Express product ships several pieces under
// one waybill (up to 999).
func (c *Carrier) MultiPieceService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}

// ReturnService: every product shipd sells can be bought as a return label
// (the customer ships it, the account is billed; see ship.go).
func (c *Carrier) ReturnService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}

// declarable reports whether a shipment is declared to customs
// (isCustomsDeclarable): goods crossing a customs border. Documents and
// goods moving within the EU customs union are not.
func declarable(s carriers.Shipment) bool {
	return carriers.CustomsRequired(s.From, s.To) && s.Customs != nil && s.Customs.ContentsType != carriers.ContentsDocuments
}
