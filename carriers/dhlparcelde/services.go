package dhlparcelde

// products are DHL Paket's products by shipd's service name: the product
// code the Parcel DE Shipping API takes (its `product`) and the procedure
// (Verfahren) its billing number is made of, the 11th and 12th character.
var products = map[string]struct{ code, procedure string }{
	"Paket":                  {"V01PAK", "01"},
	"PaketInternational":     {"V53WPAK", "53"},
	"Europaket":              {"V54EPAK", "54"},
	"Kleinpaket":             {"V62KP", "62"},
	"WarenpostInternational": {"V66WPI", "66"},
}

// ProductCode is the Parcel DE Shipping API's code of a service ("V01PAK"
// for Paket), "" for none.
func ProductCode(service string) string { return products[service].code }
