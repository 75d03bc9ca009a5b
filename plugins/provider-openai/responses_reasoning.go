package main

import (
	"bytes"
	"encoding/json"
	"strings"
)

// encryptedReasoning is a Responses API reasoning item as it crosses the
// plugin boundary, JSON in sdk.Reasoning.Redacted: the item id and its
// encrypted content are both needed to pass it back with store: false.
// The JSON envelope tells it apart from other vendors' opaque data
// (Anthropic's redacted_thinking is base64, never a JSON object), which
// must never be sent to OpenAI.
type encryptedReasoning struct {
	ID               string `json:"id"`
	EncryptedContent string `json:"encrypted_content"`
}

// encodeEncryptedReasoning is the Redacted value for one reasoning item.
func encodeEncryptedReasoning(id, content string) string {
	b, _ := json.Marshal(encryptedReasoning{ID: id, EncryptedContent: content}) // two strings always marshal
	return string(b)
}

// decodeEncryptedReasoning reads a Redacted value this plugin produced; ok
// is false for anything else.
func decodeEncryptedReasoning(redacted string) (encryptedReasoning, bool) {
	if !strings.HasPrefix(redacted, "{") {
		return encryptedReasoning{}, false
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(redacted)))
	dec.DisallowUnknownFields()
	var r encryptedReasoning
	if dec.Decode(&r) != nil || dec.More() || r.ID == "" || r.EncryptedContent == "" {
		return encryptedReasoning{}, false
	}
	return r, true
}
