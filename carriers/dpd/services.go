package dpd

// productCodes are the META-API's product codes (shipping's productCode)
// of shipd's services.
var productCodes = map[string]string{
	"Classic":              "CL",
	"Express830":           "E830",
	"Express12":            "E12",
	"Express18":            "E18",
	"InternationalExpress": "IE2",
}

// ProductCode is the META-API's code of a service ("CL" for Classic), ""
// for none.
func ProductCode(service string) string { return productCodes[service] }
