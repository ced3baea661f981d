package usps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// flexString accepts a JSON string or number: USPS documents its codes as
// strings but some answers carry them as numbers.
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	if string(b) == "null" {
		*f = ""
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexString(n.String())
	return nil
}

// plainJSONError rewords a type mismatch without Go type names, since the
// message reaches shipd's users.
func plainJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := "a value of another type"
	switch te.Type.Kind() {
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "a boolean"
	case reflect.Int, reflect.Int64, reflect.Float64:
		want = "a number"
	}
	if te.Type == reflect.TypeOf(json.Number("")) {
		want = "a number"
	}
	field := te.Field
	if field == "" {
		field = "the answer"
	}
	return fmt.Errorf("%s is %s where %s is expected", field, article(te.Value), want)
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	default:
		return "a " + jsonKind
	}
}

// decodeJSON decodes with numbers kept as text, so money is parsed exactly.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return plainJSONError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}
