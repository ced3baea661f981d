package dhlexpress

// productCodes are MyDHL's global product codes (productCode) of shipd's
// services.
var productCodes = map[string]string{
	"DomesticExpress":    "N", // DOMESTIC EXPRESS
	"ExpressWorldwide":   "P", // EXPRESS WORLDWIDE (non-documents)
	"ExpressWorldwideEU": "U", // EXPRESS WORLDWIDE within the EU
	"Express900":         "K", // EXPRESS 9:00
	"Express1200":        "Y", // EXPRESS 12:00
	"EconomySelect":      "W", // ECONOMY SELECT (within Europe, by road)
}

// ProductCode is MyDHL's code of a service ("P" for ExpressWorldwide), ""
// for none.
func ProductCode(service string) string { return productCodes[service] }
