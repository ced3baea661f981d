package carriers

import (
	"encoding/json"
	"testing"
)

func TestAmountMinor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		json     string
		decimals int
		want     int64
		wantErr  bool
	}{
		{`445.54`, 2, 44554, false}, {`"445.54"`, 2, 44554, false}, {`0.1`, 2, 10, false}, {`0.29`, 2, 29, false},
		{`12`, 2, 1200, false}, {`12.3`, 2, 1230, false}, {`12.345`, 2, 1235, false}, {`12.344`, 2, 1234, false},
		{`1.005`, 2, 101, false}, {`0.07`, 2, 7, false}, {`" 3.50 "`, 2, 350, false},
		// Currencies of other minor units (ISO 4217): JPY has none, KWD three.
		{`1234`, 0, 1234, false}, {`1234.5`, 0, 1235, false}, {`1234.49`, 0, 1234, false},
		{`1.2345`, 3, 1235, false}, {`1.2`, 3, 1200, false},
		{`-1.00`, 2, 0, true}, {`1e3`, 2, 0, true}, {`"abc"`, 2, 0, true}, {`""`, 2, 0, true}, {`null`, 2, 0, true},
		{`"12."`, 2, 0, true}, {`".5"`, 2, 0, true}, {`"1,000.00"`, 2, 0, true}, {`1234567890123456`, 2, 0, true},
	} {
		var a Amount
		err := json.Unmarshal([]byte(tt.json), &a)
		var got int64
		if err == nil {
			got, err = a.Minor(tt.decimals)
		}
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("Minor(%s, %d) = %d, %v; want %d, error %v", tt.json, tt.decimals, got, err, tt.want, tt.wantErr)
		}
	}
	for _, bad := range []string{`true`, `{}`, `[1]`} {
		var a Amount
		if err := json.Unmarshal([]byte(bad), &a); err == nil {
			t.Errorf("Amount accepted %s", bad)
		}
	}
}

// What a carrier answers as a price is parsed without a panic, and never
// to a negative amount.
func FuzzAmount(f *testing.F) {
	for _, s := range []string{`445.54`, `"12.345"`, `0`, `1e3`, `-1`, `"1,0"`, `99999999999999.99`, `"."`, `0.005`, `"5."`, `12.3456789`} {
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, b []byte, decimals uint8) {
		var a Amount
		if a.UnmarshalJSON(b) != nil {
			return
		}
		if n, err := a.Minor(int(decimals % 4)); err == nil && n < 0 {
			t.Fatalf("negative amount %d from %q", n, b)
		}
	})
}
