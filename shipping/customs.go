package shipping

import (
	"fmt"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// customsIssues checks the declaration beyond the schema: HS numbers of 6
// to 10 digits, and the US export filing rule. A US export whose goods
// under one Schedule B number are worth more than $2,500 needs EEI filed
// in AES, so its paperwork must cite the ITN ("AES X..."); an exemption
// legend there would be a false declaration. Below the threshold anything
// the caller cites is theirs to answer for, and the default is NOEEI
// 30.37(a) (carriers.Customs.EEL).
func (in Input) customsIssues() []Issue {
	c := in.Customs
	if c == nil {
		return nil
	}
	var issues []Issue
	for i, it := range c.Items {
		switch path := fmt.Sprintf("customs.items.%d", i); {
		case it.WeightOz != nil && it.WeightG != nil:
			issues = append(issues, Issue{Path: path, Message: "has weightOz and weightG: give the line's weight in one of them"})
		case it.WeightOz == nil && it.WeightG == nil:
			issues = append(issues, Issue{Path: path + ".weightOz", Message: "is required (or weightG, in grams)", Missing: true})
		}
		if it.HSTariffNumber == nil {
			continue
		}
		if _, ok := carriers.HSDigits(*it.HSTariffNumber); !ok {
			issues = append(issues, Issue{Path: fmt.Sprintf("customs.items.%d.hsTariffNumber", i),
				Message: "must be an HS tariff number of 6 to 10 digits (dots and spaces between them allowed), as 6109.10"})
		}
	}
	if len(issues) > 0 || !in.international() || !strings.EqualFold(in.From.Country, "US") {
		return issues
	}
	cc := in.CarrierShipment().Customs
	values := cc.ScheduleBValues()
	if len(values) == 0 {
		return nil
	}
	top := values[0]
	if top.ValueCents <= carriers.EEIThresholdCents {
		return nil
	}
	which := "Schedule B number " + top.Number
	if top.Number == "" {
		which = "the items without an hsTariffNumber (counted together)"
	}
	rule := fmt.Sprintf("US exports with more than $2,500 under one Schedule B number need Electronic Export Information filed in AES and its ITN: give eelPfc as \"AES X\" and the 14 digits of the ITN (%s declares $%d.%02d)",
		which, top.ValueCents/100, top.ValueCents%100)
	if c.EELPFC == nil || strings.TrimSpace(*c.EELPFC) == "" {
		return []Issue{{Path: "customs.eelPfc", Message: "is required: " + rule, Missing: true}}
	}
	if _, ok := carriers.ITN(*c.EELPFC); !ok {
		return []Issue{{Path: "customs.eelPfc", Message: "must cite the ITN: " + rule}}
	}
	return nil
}

// dutiesQuoted reports whether a rate may sell shipment: a DDP shipment of
// goods only with a rate that quotes its duties and taxes (DutiesCents),
// since they are charged with the label. A carrier that ships DDP without
// quoting them would bill the platform's account for duties no customer
// paid; documents pay none.
func dutiesQuoted(shipment carriers.Shipment, r carriers.Rate) bool {
	c := shipment.Customs
	if !c.DDP() || !carriers.CustomsRequired(shipment.From, shipment.To) || c.ContentsType == carriers.ContentsDocuments {
		return true
	}
	return r.DutiesCents > 0
}

// International reports whether the shipment crosses a border with a
// declaration, and so has a customs document once its label is bought.
func (s Shipment) International() bool {
	return s.Input.Customs != nil && s.Input.CustomsRequired()
}
