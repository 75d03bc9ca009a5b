package sdk

import "encoding/json"

// Default is the JSON literal of v, for Attribute.Default:
// Default("chat"), Default(4096), Default(true). v must marshal; a value
// that does not (a channel, a func) panics, as a mistake in a schema
// literal should.
func Default(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sdk.Default: " + err.Error())
	}
	return b
}

// The attributes every HTTP provider declares, under the names and with
// the meaning ParseBaseURL and ExtraHeaders check. A plugin lists them in
// its Schema among its own.

// BaseURLAttribute declares base_url, the API root, with its default;
// description says where requests go.
func BaseURLAttribute(defaultURL, description string) Attribute {
	return Attribute{Name: "base_url", Type: "string", Default: Default(defaultURL), Description: description}
}

// ModelAttribute declares model, the model a request that names none
// gets; example is one the API serves.
func ModelAttribute(example string) Attribute {
	return Attribute{Name: "model", Type: "string", Description: "Model used when a request names none, e.g. " + example + "."}
}

// MaxTokensAttribute declares max_tokens, the output limit sent when a
// request sets none, with its default; description says where it goes.
func MaxTokensAttribute(defaultTokens int, description string) Attribute {
	return Attribute{Name: "max_tokens", Type: "number", Default: Default(defaultTokens), Description: description}
}

// HeadersAttribute declares headers, the extra request headers that
// ExtraHeaders checks; example, when not empty, shows one.
func HeadersAttribute(example string) Attribute {
	d := "Extra request headers"
	if example != "" {
		d += ", e.g. " + example
	}
	return Attribute{Name: "headers", Type: "map(string)", Description: d + ". Credential headers are refused: the host injects the credential."}
}

// StrictStreamAttribute declares strict_stream: off (the default), a
// stream event that cannot be decoded is passed over and counted
// (Stream.Skip); on, it fails the reply as it always did. Set it from the
// config with Stream.Strict.
func StrictStreamAttribute() Attribute {
	return Attribute{Name: "strict_stream", Type: "bool", Default: Default(false),
		Description: "Fail a streamed reply on an event that is not valid JSON, instead of skipping and counting it (the reply still needs its terminal event either way)."}
}
