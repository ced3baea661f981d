package usps

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// formNumberInDetail is a SCAN form's number in a refusal's detail: the EFN
// its barcode carries, 20 to 34 digits after the words "SCAN form".
var formNumberInDetail = regexp.MustCompile(`(?i)\bSCAN\s+form\s+(?:number\s+)?#?(\d{20,34})\b`)

// formAlreadyMade reads a refused SCAN form request: when USPS refused it
// because every listed label is already on one SCAN form, each error's
// detail naming its label and that form, the labels' form is that one
// (USPS puts a label on one form only, and has no GET of a form: its
// refusal is the only place the number is). It answers the form, known by
// its number alone (USPS cannot give its image again), and true; false for
// any other refusal, or labels on several forms, or some not named.
func formAlreadyMade(body []byte, numbers []string) (carriers.ManifestForm, bool) {
	var ans struct {
		Error struct {
			Errors []struct {
				Detail string `json:"detail"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &ans) != nil || len(ans.Error.Errors) == 0 {
		return carriers.ManifestForm{}, false
	}
	form := ""
	onForm := make(map[string]bool, len(numbers))
	for _, e := range ans.Error.Errors {
		m := formNumberInDetail.FindStringSubmatch(e.Detail)
		if m == nil || (form != "" && m[1] != form) {
			return carriers.ManifestForm{}, false
		}
		form = m[1]
		named := false
		for _, tn := range numbers {
			if tn != form && strings.Contains(e.Detail, tn) {
				onForm[tn], named = true, true
			}
		}
		if !named {
			return carriers.ManifestForm{}, false
		}
	}
	if len(onForm) != len(numbers) {
		return carriers.ManifestForm{}, false
	}
	return carriers.ManifestForm{Number: form, Recovered: true}, true
}
