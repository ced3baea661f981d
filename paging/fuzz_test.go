package paging_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/shipd-dev/shipd/paging"
)

// FuzzDecode feeds Decode any cursor and limit a client can send. Run it with
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 20s ./paging/
func FuzzDecode(f *testing.F) {
	enc := base64.RawURLEncoding.EncodeToString
	for _, c := range []string{
		"", "%zz", "=", "v1:", "v1:x", enc([]byte("v1:")), enc([]byte("v1:shp_0b1c2d3e4f5a6b7c8d9e0f1a")),
		enc([]byte("v2:shp_1")), enc([]byte("shp_1")), enc([]byte("v1:\x00\xff")), enc([]byte("v1:" + strings.Repeat("x", 150))),
		base64.StdEncoding.EncodeToString([]byte("v1:shp_1")), base64.URLEncoding.EncodeToString([]byte("v1:a")),
		enc([]byte("v1:a")) + "\n", "\r\n" + enc([]byte("v1:ab")), "djE6YQ", "djE6YR", "djE6Y", "A", strings.Repeat("A", 201),
	} {
		for _, l := range []int{0, 1, 25, 100, 101, -1, 1 << 62, -1 << 63} {
			f.Add(c, true, l, l != 0)
		}
		f.Add(c, false, 0, false)
	}
	f.Fuzz(func(t *testing.T, cursor string, hasCursor bool, limit int, hasLimit bool) {
		var c *string
		if hasCursor {
			c = &cursor
		}
		var l *int
		if hasLimit {
			l = &limit
		}
		// Any id survives Encode and Decode.
		if cursor != "" {
			enc := paging.Encode(cursor)
			if r, err := paging.Decode(&enc, nil); err != nil || r.After != cursor {
				t.Fatalf("Encode(%q) = %q decodes to %+v, %v", cursor, enc, r, err)
			}
		}

		r, err := paging.Decode(c, l)

		// The limit: the client's as given (the contract bounds it to
		// 1..100 before Decode sees it), else the default, which is in range.
		want := paging.DefaultLimit
		if hasLimit {
			want = limit
		}
		if r.Limit != want {
			t.Fatalf("Decode(%q, %d): Limit %d, want %d", cursor, limit, r.Limit, want)
		}
		if paging.DefaultLimit < 1 || paging.DefaultLimit > 100 {
			t.Fatalf("DefaultLimit %d is outside the contract's 1..100", paging.DefaultLimit)
		}

		if err != nil {
			if !errors.Is(err, paging.ErrInvalidCursor) {
				t.Fatalf("Decode(%q): %v, want ErrInvalidCursor", cursor, err)
			}
			if r.After != "" {
				t.Fatalf("Decode(%q) refused the cursor but set After %q", cursor, r.After)
			}
			return
		}
		if !hasCursor || cursor == "" {
			if r.After != "" {
				t.Fatalf("no cursor, yet After %q", r.After)
			}
			return
		}
		// An accepted cursor names an item, and the cursor Encode makes of
		// that item decodes to it again.
		if r.After == "" {
			t.Fatalf("Decode(%q) accepted a cursor naming no item", cursor)
		}
		next := paging.Encode(r.After)
		again, err := paging.Decode(&next, l)
		if err != nil || again != r {
			t.Fatalf("Decode(%q) = %+v; Encode gives %q, which decodes to %+v, %v", cursor, r, next, again, err)
		}
	})
}
