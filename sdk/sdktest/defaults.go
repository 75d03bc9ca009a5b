package sdktest

import (
	"encoding/json"
	"fmt"

	"github.com/axonhq/axon/sdk"
)

// ApplyDefaults does for tests what the host's HCL decoder does: it fills
// absent attributes with their schema defaults, and rejects unknown and
// missing required attributes.
func ApplyDefaults(schema sdk.Schema, values json.RawMessage) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(values) > 0 {
		if err := json.Unmarshal(values, &obj); err != nil {
			return nil, fmt.Errorf("config values are not a JSON object: %w", err)
		}
	}
	known := map[string]bool{}
	for _, a := range schema.Attributes {
		known[a.Name] = true
		if _, ok := obj[a.Name]; ok {
			continue
		}
		switch {
		case len(a.Default) > 0:
			obj[a.Name] = a.Default
		case a.Required:
			return nil, fmt.Errorf("required attribute %q is missing", a.Name)
		}
	}
	for k := range obj {
		if !known[k] {
			return nil, fmt.Errorf("attribute %q is not in the plugin's schema", k)
		}
	}
	return json.Marshal(obj)
}
