// Package webhooks delivers shipd's events to the endpoints accounts
// subscribe: the HTTP client that refuses to be pointed at internal networks
// and the URL rules of a subscription. Receivers verify deliveries with the
// standalone package webhooks/signature.
package webhooks
