package pdfmerge

import "bytes"

// seed is a damaged document; refused says it must be refused
// (ErrUnmergeable), else it may also be read (a reader repairs what it
// can), but never panic.
type seed struct {
	name    string
	doc     []byte
	refused bool
}

// malformedSeeds are the damaged documents, each a readable label
// bent in one place, and more of the same kind found reading the parser.
func malformedSeeds() []seed {
	bent := func(bend func(p *pdf15)) []byte {
		p := labelPDF15("BT (x) Tj ET")
		bend(&p)
		return p.bytes()
	}
	classic := func(content string) []byte {
		return buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>", content}, nil)
	}
	label := classic(stream("BT (x) Tj ET"))
	return []seed{
		// The four: each panicked the merger.
		{"xref stream W [-5 10 1]", bent(func(p *pdf15) { p.xref.w = "/W [-5 10 1]" }), true},
		{"trailer XRefStm -1", bytes.Replace(label, []byte("/Root 1 0 R"), []byte("/Root 1 0 R /XRefStm -1"), 1), true},
		{"object stream First -100000", bent(func(p *pdf15) {
			s := p.stms[10]
			s.first = "-100000"
			p.stms[10] = s
		}), true},
		{"DecodeParms Columns 9e18", bent(func(p *pdf15) {
			p.xref.decodeParms = "/DecodeParms << /Predictor 12 /Columns 9000000000000000000 >>"
		}), true},
		// Numbers that overflow an offset, a size or a sum of them.
		{"stream Length 2^63-1", classic("<< /Length 9223372036854775807 >>\nstream\nBT (x) Tj ET\nendstream"), false},
		{"xref stream W [1 8 8]", bent(func(p *pdf15) { p.xref.w = "/W [1 8 8]" }), true},
		{"xref stream W [0 0 0]", bent(func(p *pdf15) { p.xref.w = "/W [0 0 0]" }), true},
		{"xref stream Index past MaxInt", bent(func(p *pdf15) { p.xref.extra = "/Index [9223372036854775800 100]" }), true},
		{"DecodeParms Colors 2^40", bent(func(p *pdf15) {
			p.xref.decodeParms = "/DecodeParms << /Predictor 12 /Columns 7 /Colors 1099511627776 >>"
		}), true},
		{"object stream First 2^63-1", bent(func(p *pdf15) {
			s := p.stms[10]
			s.first = "9223372036854775807"
			p.stms[10] = s
		}), true},
		{"classic xref subsection at MaxInt", bytes.Replace(label, []byte("xref\n0 5\n"), []byte("xref\n9223372036854775807 5\n"), 1), true},
		// An object stream whose /Length is an object inside itself: reading
		// it needs it read.
		{"object stream Length in itself", bent(func(p *pdf15) {
			p.inStm[6] = "99"
			s := p.stms[10]
			s.members, s.length = append(s.members, 6), "6 0 R"
			p.stms[10] = s
		}), false},
		// A page tree that is a cycle, and one that lists a page twice.
		{"page tree cycle", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 2 >>"}, nil), true},
		{"page listed twice", buildPDF([]string{
			"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R >>", stream("BT (x) Tj ET")}, nil), true},
		// A PNG row filter that does not exist.
		{"PNG filter 9", bent(func(p *pdf15) {
			p.xref.decodeParms = "/DecodeParms << /Predictor 12 /Columns 6 >>"
		}), true},
	}
}
