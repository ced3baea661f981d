package sandbox

import (
	"fmt"
	"strings"

	"github.com/go-pdf/fpdf"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/paperwork"
)

// CN22MaxCents is the most a postal item's contents may be worth under a
// CN22; above it the UPU's CN23 is the declaration.
const CN22MaxCents = 40000

// cn22Lines is how many item lines fit on the 4x6 form; the commercial
// invoice (customs.pdf) lists the rest.
const cn22Lines = 8

// postalForm is the customs declaration a postal label carries (USPS: CN22
// or CN23 integrated with the label document), or "" when it needs none.
func postalForm(t *carriers.SandboxTariff, s carriers.Shipment) string {
	if !t.PostalCustomsForms || s.Customs == nil || !carriers.CustomsRequired(s.From, s.To) {
		return ""
	}
	if s.Customs.TotalValueCents() <= CN22MaxCents {
		return "CN 22"
	}
	return "CN 23"
}

// customsFormPage adds the CN22 / CN23 as a 4x6 page after the label.
func customsFormPage(pdf *fpdf.Fpdf, in LabelInput) {
	c := in.Customs
	tr := paperwork.CP1252
	pdf.AddPageFormat("P", fpdf.SizeType{Wd: pageW, Ht: pageH})
	pdf.SetLineWidth(0.02)
	pdf.Rect(margin, margin, innerW, pageH-2*margin, "D")
	x := margin + padding
	w := innerW - 2*padding
	// Inside the frame: line breaks return to x, not to the page's margin.
	pdf.SetLeftMargin(x)
	defer pdf.SetLeftMargin(margin)
	pdf.SetXY(x, margin+0.08)
	pdf.SetFont("Helvetica", "B", 13)
	pdf.CellFormat(w, 0.22, "CUSTOMS DECLARATION "+in.CustomsForm, "", 2, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 7)
	pdf.CellFormat(w, 0.14, tr(fmt.Sprintf("%s  %s  May be opened officially", in.Carrier, in.TrackingNumber)), "", 2, "L", false, 0, "")
	if in.TestMode {
		pdf.SetFont("Helvetica", "B", 7)
		pdf.CellFormat(w, 0.14, tr(sampleMark), "", 2, "L", false, 0, "")
	}

	// Category of item: one box checked.
	pdf.SetFont("Helvetica", "", 7)
	checked := c.ContentsType
	for _, cat := range [][2]string{
		{carriers.ContentsGift, "Gift"}, {carriers.ContentsDocuments, "Documents"}, {carriers.ContentsSample, "Commercial sample"},
		{carriers.ContentsReturnedGoods, "Returned goods"}, {carriers.ContentsMerchandise, "Sale of goods"}, {carriers.ContentsOther, "Other"},
	} {
		mark := "[ ]"
		if cat[0] == checked {
			mark = "[X]"
		}
		pdf.CellFormat(w/3, 0.15, mark+" "+cat[1], "", 0, "L", false, 0, "")
		if pdf.GetX() > x+w-0.1 {
			pdf.Ln(0.15)
			pdf.SetX(x)
		}
	}
	pdf.Ln(0.05)
	if in.CustomsForm == "CN 23" {
		pdf.SetX(x)
		pdf.CellFormat(w, 0.14, tr("From: "+oneLine(in.From)), "", 2, "L", false, 0, "")
		pdf.CellFormat(w, 0.14, tr("To: "+oneLine(in.To)), "", 2, "L", false, 0, "")
		pdf.CellFormat(w, 0.14, tr("Invoice: "+paperwork.Invoice{Reference: in.Reference, Customs: *c}.Number()+
			"   Importer's reference: "+dash(c.ImporterTaxID)), "", 2, "L", false, 0, "")
	}

	cols := []struct {
		title string
		w     float64
		align string
	}{{"Description", 1.3, "L"}, {"Qty", 0.3, "R"}, {"Weight", 0.55, "R"}, {"Value USD", 0.6, "R"}, {"HS no.", 0.5, "L"}, {"Origin", w - 3.25, "C"}}
	pdf.SetX(x)
	pdf.SetFont("Helvetica", "B", 6.5)
	for _, col := range cols {
		pdf.CellFormat(col.w, 0.16, col.title, "1", 0, col.align, false, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 6.5)
	for i, it := range c.Items {
		if i == cn22Lines {
			pdf.SetX(x)
			pdf.CellFormat(w, 0.15, fmt.Sprintf("and %d more lines: see the commercial invoice", len(c.Items)-cn22Lines), "1", 1, "L", false, 0, "")
			break
		}
		pdf.SetX(x)
		desc := tr(strings.Join(strings.Fields(it.Description), " "))
		for len(desc) > 1 && pdf.GetStringWidth(desc) > cols[0].w-0.05 {
			desc = desc[:len(desc)-1]
		}
		cells := []string{desc, fmt.Sprint(it.Quantity), paperwork.Weight(it.WeightOz), paperwork.Money(it.ValueCents), dash(it.HSTariffNumber), dash(it.OriginCountry)}
		for j, col := range cols {
			pdf.CellFormat(col.w, 0.15, cells[j], "1", 0, col.align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	pdf.SetX(x)
	pdf.SetFont("Helvetica", "B", 6.5)
	pdf.CellFormat(cols[0].w+cols[1].w, 0.16, "Total", "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[2].w, 0.16, paperwork.Weight(c.TotalWeightOz()), "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[3].w, 0.16, paperwork.Money(c.TotalValueCents()), "1", 0, "R", false, 0, "")
	pdf.CellFormat(cols[4].w+cols[5].w, 0.16, "", "1", 1, "L", false, 0, "")

	pdf.SetFont("Helvetica", "", 6.5)
	pdf.SetX(x)
	if e := c.EEL(in.From.Country); e != "" {
		pdf.CellFormat(w, 0.14, tr("Export filing: "+e), "", 2, "L", false, 0, "")
	}
	nd := "Return to sender"
	if c.NonDeliveryOption == carriers.NonDeliveryAbandon {
		nd = "Treat as abandoned"
	}
	pdf.CellFormat(w, 0.14, "If undeliverable: "+nd, "", 2, "L", false, 0, "")
	pdf.Ln(0.08)
	pdf.MultiCell(w, 0.12, "I certify that the particulars given in this customs declaration are correct and that this item "+
		"does not contain any dangerous article prohibited by legislation or by postal or customs regulations.", "", "L", false)
	y := pageH - margin - 0.35
	pdf.Line(x, y, x+2.2, y)
	pdf.Line(x+2.4, y, x+w, y)
	pdf.Text(x, y+0.12, "Sender's signature")
	pdf.Text(x+2.4, y+0.12, "Date "+in.Date.UTC().Format("2006-01-02"))
}

func oneLine(a carriers.Address) string {
	var parts []string
	for _, p := range []string{a.Name, a.Company, a.Street1, a.City, a.State, a.Zip, carriers.NormalizeCountry(a.Country)} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
