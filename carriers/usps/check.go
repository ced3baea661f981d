package usps

import "context"

// CheckCredentials asks the token endpoint for a token, through the token
// cache, so that the token it gets serves the calls that follow.
func (c *Carrier) CheckCredentials(ctx context.Context) error {
	_, err := c.tokens.Token(ctx)
	return err
}
