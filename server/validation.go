package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/shipd-dev/shipd/gen"
)

// validateRequest checks the request against the contract before any handler
// runs. Unparsable JSON is 400 invalid_json; everything else is 422, shaped by
// how many problems there are (see validationError).
func (s *Server) validateRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.ops[routeKey(c.Request().Method, c.Path())]
		if op == nil {
			return next(c)
		}
		req := c.Request()
		if op.hasBody {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				if isBodyTooLarge(err) {
					return payloadTooLarge(s.cfg.MaxBodyBytes)
				}
				return newAPIError(http.StatusBadRequest, "invalid_json", "the request body could not be read")
			}
			if err := checkJSONBody(req, body, op.route.Operation.RequestBody.Value.Required); err != nil {
				return err
			}
			if op.idempotent && len(bytes.TrimSpace(body)) > 0 {
				if m, _ := req.Context().Value(responseKey).(*responseMeta); m != nil {
					if m.fingerprint, err = bodyFingerprint(body); err != nil {
						return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is not valid JSON")
					}
				}
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		params := map[string]string{}
		for i, name := range c.ParamNames() {
			params[name] = c.ParamValues()[i]
		}
		input := &openapi3filter.RequestValidationInput{
			Request:    req,
			PathParams: params,
			Route:      op.route,
			Options: &openapi3filter.Options{
				MultiError:         true,
				AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			},
		}
		if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
			return validationError(err)
		}
		if req.GetBody != nil {
			req.Body, _ = req.GetBody()
		}
		return next(c)
	}
}

func checkJSONBody(req *http.Request, body []byte, required bool) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		if required {
			return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is empty; send a JSON object")
		}
		return nil
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return newAPIError(http.StatusBadRequest, "invalid_json", "send the body as JSON with Content-Type: application/json")
	}
	if !json.Valid(body) {
		return newAPIError(http.StatusBadRequest, "invalid_json", "the request body is not valid JSON")
	}
	if bytes.TrimSpace(body)[0] != '{' {
		return newAPIError(http.StatusBadRequest, "invalid_json", "the request body must be a JSON object")
	}
	return nil
}

// validationIssue is one problem found by validation.
type validationIssue struct {
	path    string
	message string
	missing bool
}

// validationError shapes the problems: one missing field is missing_field, one
// wrong field invalid_field, several are invalid_request with every issue.
func validationError(err error) *apiError {
	issues := collectIssues(err, nil)
	if len(issues) == 0 {
		return newAPIError(http.StatusUnprocessableEntity, "invalid_request", "the request does not match the contract")
	}
	return validationIssuesError(issues)
}

func validationIssuesError(issues []validationIssue) *apiError {
	sort.SliceStable(issues, func(i, j int) bool { return issues[i].path < issues[j].path })
	if len(issues) == 1 {
		is := issues[0]
		if is.missing {
			return newAPIError(http.StatusUnprocessableEntity, "missing_field", is.path+" "+is.message).withField(is.path)
		}
		return newAPIError(http.StatusUnprocessableEntity, "invalid_field", is.path+": "+is.message).withField(is.path)
	}
	e := newAPIError(http.StatusUnprocessableEntity, "invalid_request", fmt.Sprintf("the request has %d problems; see issues", len(issues)))
	list := make([]gen.ValidationIssue, len(issues))
	for i, is := range issues {
		list[i] = gen.ValidationIssue{Path: is.path, Message: is.message}
	}
	e.Body.Issues = &list
	return e
}

// collectIssues flattens kin-openapi's error tree. It switches on concrete
// types rather than errors.As because a RequestError unwraps to its inner
// MultiError, which would lose the parameter the errors belong to.
func collectIssues(err error, out []validationIssue) []validationIssue {
	switch e := err.(type) {
	case openapi3.MultiError:
		for _, inner := range e {
			out = collectIssues(inner, out)
		}
		return out
	case *openapi3filter.RequestError:
		if e.Parameter != nil {
			return append(out, parameterIssues(e)...)
		}
		if e.Err != nil {
			return collectIssues(e.Err, out)
		}
		return append(out, validationIssue{path: "body", message: e.Reason})
	case *openapi3.SchemaError:
		path := strings.Join(e.JSONPointer(), ".")
		if e.SchemaField == "required" {
			return appendIssue(out, validationIssue{path: path, message: "is required", missing: true})
		}
		if path == "" {
			path = "body"
		}
		return appendIssue(out, validationIssue{path: path, message: schemaMessage(e)})
	}
	if u := errors.Unwrap(err); u != nil {
		return collectIssues(u, out)
	}
	return append(out, validationIssue{path: "body", message: err.Error()})
}

func parameterIssues(re *openapi3filter.RequestError) []validationIssue {
	name := re.Parameter.Name
	if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
		return []validationIssue{{path: name, message: "is required", missing: true}}
	}
	var out []validationIssue
	for _, is := range collectIssues(re.Err, nil) {
		is.path = name
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			is.message = "must be " + article(strings.Join(re.Parameter.Schema.Value.Type.Slice(), " or "))
		}
		out = appendIssue(out, is)
	}
	return out
}

// appendIssue drops repeats: kin-openapi can report one bound twice (minimum and exclusiveMinimum).
func appendIssue(out []validationIssue, is validationIssue) []validationIssue {
	for _, have := range out {
		if have.path == is.path && have.message == is.message {
			return out
		}
	}
	return append(out, is)
}

// schemaMessage words a schema failure for people; it never echoes the value.
func schemaMessage(se *openapi3.SchemaError) string {
	switch se.SchemaField {
	case "exclusiveMinimum", "minimum":
		if se.Schema != nil && se.Schema.Min != nil {
			if (se.Schema.ExclusiveMin.Bool != nil && *se.Schema.ExclusiveMin.Bool) || se.SchemaField == "exclusiveMinimum" {
				return fmt.Sprintf("number must be greater than %g", *se.Schema.Min)
			}
			return fmt.Sprintf("number must be at least %g", *se.Schema.Min)
		}
	case "pattern":
		if se.Schema != nil && se.Schema.Pattern == "^[A-Za-z]{2}$" {
			return "must be a two-letter ISO 3166-1 country code"
		}
	}
	return strings.ReplaceAll(se.Reason, "more than", "greater than")
}

func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
