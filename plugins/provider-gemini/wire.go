package main

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// The generateContent wire format, both directions. Only the fields this
// plugin reads or writes are declared; the API adds fields freely.

type wireRequest struct {
	SystemInstruction *wireContent    `json:"systemInstruction,omitempty"`
	Contents          []wireContent   `json:"contents"`
	Tools             []wireTool      `json:"tools,omitempty"`
	ToolConfig        *wireToolConfig `json:"toolConfig,omitempty"`
	GenerationConfig  *wireGenConfig  `json:"generationConfig,omitempty"`
}

type wireContent struct {
	Role  string     `json:"role,omitempty"`
	Parts []wirePart `json:"parts"`
}

// wirePart is one element of a content's parts. Text is a pointer so that
// an empty text part carrying only a thoughtSignature survives encoding.
type wirePart struct {
	Text             *string               `json:"text,omitempty"`
	Thought          bool                  `json:"thought,omitempty"`
	ThoughtSignature string                `json:"thoughtSignature,omitempty"`
	InlineData       *wireBlob             `json:"inlineData,omitempty"`
	FileData         *wireFileData         `json:"fileData,omitempty"`
	FunctionCall     *wireFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *wireFunctionResponse `json:"functionResponse,omitempty"`
}

type wireBlob struct {
	MimeType string `json:"mimeType"`
	Data     []byte `json:"data"` // base64 on the wire, as encoding/json writes []byte
}

type wireFileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type wireFunctionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type wireFunctionResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type wireTool struct {
	FunctionDeclarations []wireFunctionDecl `json:"functionDeclarations"`
}

type wireFunctionDecl struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type wireToolConfig struct {
	FunctionCallingConfig wireFunctionCallingConfig `json:"functionCallingConfig"`
}

type wireFunctionCallingConfig struct {
	Mode                 string   `json:"mode"`
	AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
}

type wireGenConfig struct {
	MaxOutputTokens *int                `json:"maxOutputTokens,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	StopSequences   []string            `json:"stopSequences,omitempty"`
	TopP            *float64            `json:"topP,omitempty"`
	TopK            *int                `json:"topK,omitempty"`
	Seed            *int64              `json:"seed,omitempty"`
	ThinkingConfig  *wireThinkingConfig `json:"thinkingConfig,omitempty"`
	// ResponseMimeType "application/json" asks for JSON;
	// ResponseJSONSchema, the JSON Schema it must match (never the
	// OpenAPI-subset responseSchema).
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

type wireThinkingConfig struct {
	IncludeThoughts bool `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int `json:"thinkingBudget,omitempty"`
}

// wireResponse is one GenerateContentResponse: a whole reply, one SSE
// chunk, or one element of a streamed JSON array. Error is set when the
// server failed inside a 200 response.
type wireResponse struct {
	Candidates     []wireCandidate     `json:"candidates"`
	PromptFeedback *wirePromptFeedback `json:"promptFeedback"`
	UsageMetadata  *wireUsage          `json:"usageMetadata"`
	ModelVersion   string              `json:"modelVersion"`
	ResponseID     string              `json:"responseId"`
	Error          *wireErrorBody      `json:"error"`
}

type wireCandidate struct {
	Content      *wireContent `json:"content"`
	FinishReason enumValue    `json:"finishReason"`
	Index        int          `json:"index"`
}

type wirePromptFeedback struct {
	BlockReason enumValue `json:"blockReason"`
}

// wireUsage is usageMetadata. Every chunk carries the running totals, so
// the last one reported wins. Nil fields were not reported.
type wireUsage struct {
	PromptTokenCount        *int64 `json:"promptTokenCount"`
	CandidatesTokenCount    *int64 `json:"candidatesTokenCount"`
	CachedContentTokenCount *int64 `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      *int64 `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount *int64 `json:"toolUsePromptTokenCount"`
}

// enumValue is a protobuf enum as JSON: its name, or its number when the
// client asked for enum-encoding=int (the Go genai SDK does), kept as
// "ENUM_<n>" so a number is never mistaken for a name.
type enumValue string

func (e *enumValue) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*e = enumValue(s)
	case bytes.Equal(b, []byte("null")):
		*e = ""
	default:
		n, err := strconv.Atoi(string(b))
		if err != nil {
			return err
		}
		*e = enumValue("ENUM_" + strconv.Itoa(n))
	}
	return nil
}
