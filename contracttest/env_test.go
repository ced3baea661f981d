package contracttest

// Env is a scenario's setup kit: its own account (so scenarios never share
// state), tokens, and calls that put shipments and subscriptions in the state
// the scenario needs. Helpers panic with setupFailure; the runner reports it.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

var allScopes = []string{"read:shipments", "write:shipments", "read:addresses", "write:addresses", "read:webhooks", "write:webhooks", "read:carriers", "write:carriers"}

// Env is created per scenario run.
type Env struct {
	ctx     context.Context
	target  *Target
	account string
	tokens  map[string]string
}

func newEnv(ctx context.Context, t *Target) *Env {
	return &Env{ctx: ctx, target: t, tokens: map[string]string{}}
}

// Failf aborts the setup.
func (e *Env) Failf(format string, args ...any) {
	panic(setupFailure{fmt.Errorf(format, args...)})
}

func (e *Env) must(err error) {
	if err != nil {
		panic(setupFailure{err})
	}
}

// Account is the scenario's account (with a payment method), created on first use.
func (e *Env) Account() string {
	if e.account == "" {
		e.account = e.NewAccount(true)
	}
	return e.account
}

// NewAccount creates another account.
func (e *Env) NewAccount(paymentMethod bool) string {
	id, err := e.target.Fixtures.CreateAccount(e.ctx, "contract test "+randomHex(4), paymentMethod)
	e.must(err)
	return id
}

// Token is a token of the scenario's account in mode with scopes (every
// scope when none are given); the same arguments return the same token.
func (e *Env) Token(mode string, scopes ...string) string {
	if len(scopes) == 0 {
		scopes = allScopes
	}
	key := mode + " " + strings.Join(scopes, ",")
	if tok, ok := e.tokens[key]; ok {
		return tok
	}
	_, secret := e.TokenOn(e.Account(), mode, scopes, 0)
	e.tokens[key] = secret
	return secret
}

// TokenOn mints a token on any account; expiresIn 0 never expires.
func (e *Env) TokenOn(account, mode string, scopes []string, expiresIn time.Duration) (id, secret string) {
	id, secret, err := e.target.Fixtures.CreateToken(e.ctx, account, mode, scopes, expiresIn)
	e.must(err)
	return id, secret
}

// RevokedToken is a test token of every scope, revoked.
func (e *Env) RevokedToken() string {
	id, secret := e.TokenOn(e.Account(), "test", allScopes, 0)
	e.must(e.target.Fixtures.RevokeToken(e.ctx, id))
	return secret
}

// ExpiredToken is a test token of every scope that has expired (the CLI's
// shortest lifetime is a second, so this waits a little over one).
func (e *Env) ExpiredToken() string {
	_, secret := e.TokenOn(e.Account(), "test", allScopes, time.Second)
	time.Sleep(1100 * time.Millisecond)
	return secret
}

// UnknownToken is well formed but matches no token.
func UnknownToken(mode string) string {
	return "svc_" + mode + "_" + strings.Repeat("x", 64)
}

// ScopesWithout is every scope that does not grant required (write:X grants read:X).
func ScopesWithout(required string) []string {
	var out []string
	for _, s := range allScopes {
		grants := s == required
		if res, ok := strings.CutPrefix(required, "read:"); ok && s == "write:"+res {
			grants = true
		}
		if !grants {
			out = append(out, s)
		}
	}
	return out
}

// Call sends a setup request (not checked against the contract; the
// scenario's own request is). path is relative to /api/v1.
func (e *Env) Call(method, path, token string, body any) *Exchange {
	op := &opInfo{Method: method, Path: path}
	x, err := e.target.send(e.ctx, op, Request{Token: token, Body: body})
	e.must(err)
	return x
}

// Want checks a setup call's status and returns its body as an object.
func (e *Env) Want(x *Exchange, status int) map[string]any {
	if x.Status != status {
		e.Failf("%s %s: status %d, want %d: %s", x.Request.Method, x.Request.URL.Path, x.Status, status, truncate(x.Body, 300))
	}
	if len(x.Body) == 0 {
		return nil
	}
	m, err := x.Object()
	e.must(err)
	return m
}

// CreateShipment buys a label (202) and returns the shipment.
func (e *Env) CreateShipment(token string, body map[string]any) map[string]any {
	return e.Want(e.Call("POST", "/labels/create", token, body), 202)
}

// WaitStatus polls GET /labels/{id} until the shipment is in one of want.
func (e *Env) WaitStatus(token, id string, want ...string) map[string]any {
	deadline := time.Now().Add(30 * time.Second)
	for {
		sh := e.Want(e.Call("GET", "/labels/"+url.PathEscape(id), token, nil), 200)
		if slices.Contains(want, fmt.Sprint(sh["status"])) {
			return sh
		}
		if time.Now().After(deadline) {
			e.Failf("shipment %s still %v after 30 s, want %v", id, sh["status"], want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Purchased is a purchased shipment of the token's account.
func (e *Env) Purchased(token string) map[string]any {
	sh := e.CreateShipment(token, Shipment("Ada Lovelace"))
	return e.WaitStatus(token, ID(sh), "purchased")
}

// CreateWebhook subscribes a fresh URL and returns the subscription.
func (e *Env) CreateWebhook(token string) map[string]any {
	return e.Want(e.Call("POST", "/webhooks", token, map[string]any{"url": HookURL(), "events": []string{"*"}}), 201)
}

// ID is the id field of a resource.
func ID(m map[string]any) string {
	id, _ := m["id"].(string)
	return id
}

// Shipment is a domestic shipment to toName (a sandbox trigger or anyone).
func Shipment(toName string) map[string]any {
	return map[string]any{
		"fromAddress": map[string]any{"name": "Shop", "phone": "415 555 0100", "street1": "1 Market St", "city": "San Francisco", "state": "CA", "zip": "94105", "country": "US"},
		"toAddress":   map[string]any{"name": toName, "phone": "212 555 0199", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"},
		"parcel":      map[string]any{"weightOz": 32, "lengthIn": 10, "widthIn": 8, "heightIn": 4},
	}
}

// With returns a copy of m with path (dot-separated) set to v, or removed when v is nil.
func With(m map[string]any, path string, v any) map[string]any {
	out := clone(m)
	cur := out
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	if v == nil {
		delete(cur, keys[len(keys)-1])
	} else {
		cur[keys[len(keys)-1]] = v
	}
	return out
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if inner, ok := v.(map[string]any); ok {
			v = clone(inner)
		}
		out[k] = v
	}
	return out
}

// Address is a deliverable US address.
func Address() map[string]any {
	return map[string]any{"name": "Ada Lovelace", "street1": "350 Fifth Avenue", "city": "New York", "state": "NY", "zip": "10118", "country": "US"}
}

// HookURL is a webhook URL no other scenario uses.
func HookURL() string { return "https://hooks.example.com/contract/" + randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
