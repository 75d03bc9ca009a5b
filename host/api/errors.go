package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/axonhq/axon/sdk"
)

// kind is what went wrong, in terms both wire formats have a word for.
type kind int

const (
	kindInvalid         kind = iota // the request is malformed
	kindUnauthorized                // the client's own token to axon is missing or wrong
	kindNotFound                    // no such model or route
	kindMethod                      // the route exists for another method
	kindTooLarge                    // the body is over the limit
	kindTimeout                     // the body did not arrive in time
	kindContextOverflow             // the prompt does not fit any provider's window
	kindContentFilter               // a provider refused
	kindQuota                       // a provider's billing or spend cap is exhausted
	kindUpstream                    // the providers failed in a way a retry will not fix
	kindUnavailable                 // the providers are down or busy for now
	kindInternal                    // a failure without a class
)

// wireStatus is how one kind looks in both formats, and whether a client
// should retry (the x-should-retry header official SDKs obey; "" omits it).
type wireStatus struct {
	openaiStatus    int
	openaiType      string
	anthropicStatus int
	anthropicType   string
	shouldRetry     string
}

func (k kind) wire() wireStatus {
	switch k {
	case kindInvalid:
		return wireStatus{400, "invalid_request_error", 400, "invalid_request_error", "false"}
	case kindUnauthorized:
		return wireStatus{401, "invalid_request_error", 401, "authentication_error", "false"}
	case kindNotFound:
		return wireStatus{404, "invalid_request_error", 404, "not_found_error", "false"}
	case kindMethod:
		return wireStatus{405, "invalid_request_error", 405, "invalid_request_error", "false"}
	case kindTooLarge:
		return wireStatus{413, "invalid_request_error", 413, "request_too_large", "false"}
	case kindTimeout:
		// No x-should-retry: the clients' own rule (they retry a 408) fits.
		return wireStatus{408, "invalid_request_error", 408, "invalid_request_error", ""}
	case kindContextOverflow:
		return wireStatus{400, "invalid_request_error", 400, "invalid_request_error", "false"}
	case kindContentFilter:
		return wireStatus{400, "invalid_request_error", 400, "invalid_request_error", "false"}
	case kindQuota:
		return wireStatus{429, "insufficient_quota", 402, "billing_error", "false"}
	case kindUpstream:
		return wireStatus{502, "server_error", 502, "api_error", "false"}
	case kindUnavailable:
		return wireStatus{503, "server_error", 529, "overloaded_error", "true"}
	}
	return wireStatus{500, "server_error", 500, "api_error", ""}
}

// wireError is one failure to report to a client, in either format. As an
// error it is what the request decoders return.
type wireError struct {
	kind       kind
	code       string // the OpenAI error code; also Record.Code
	param      string // the offending request field, when one is
	message    string
	class      sdk.Class     // of a backend failure
	retryAfter time.Duration // the backend's retry hint
}

func (e *wireError) Error() string { return e.message }

// Request errors, with the error codes OpenAI uses for them.
func invalidJSON(err error) *wireError {
	return &wireError{kind: kindInvalid, code: "invalid_json", message: "the request body is not valid JSON: " + err.Error()}
}

func missing(param string) *wireError {
	return &wireError{kind: kindInvalid, code: "missing_required_parameter", param: param, message: param + ": field required"}
}

func invalidf(param, format string, args ...any) *wireError {
	return &wireError{kind: kindInvalid, code: "invalid_value", param: param, message: param + ": " + fmt.Sprintf(format, args...)}
}

func unsupportedf(param, format string, args ...any) *wireError {
	return &wireError{kind: kindInvalid, code: "unsupported_value", param: param, message: param + ": " + fmt.Sprintf(format, args...)}
}

// classify maps a backend failure to what the client is told. The class
// decides; the upstream status only separates a request the provider
// rejected as malformed (the client's to fix) from one it could not serve.
func classify(err error) *wireError {
	e := &wireError{message: err.Error(), class: sdk.ClassOf(err)}
	status := 0 // the upstream HTTP status, when the failure had one
	if se := (*sdk.Error)(nil); errors.As(err, &se) {
		status = se.Status
	}
	switch e.class {
	case sdk.ClassTransient:
		e.kind, e.code = kindUnavailable, "upstream_unavailable"
		e.retryAfter = retryAfter(err)
	case sdk.ClassPermanent:
		if status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity {
			e.kind, e.code = kindInvalid, "invalid_request"
		} else {
			e.kind, e.code = kindUpstream, "upstream_error"
		}
	case sdk.ClassAuthRequired:
		// The provider refused axon's credential: axon's configuration is at
		// fault, not the client's token, so this is no 401.
		e.kind, e.code = kindUpstream, "upstream_auth_failed"
	case sdk.ClassQuotaExhausted:
		e.kind, e.code = kindQuota, "insufficient_quota"
	case sdk.ClassContextOverflow:
		e.kind, e.code = kindContextOverflow, "context_length_exceeded"
	case sdk.ClassContentFilter:
		e.kind, e.code = kindContentFilter, "content_filter"
		e.message = refusalMessage(err)
	default:
		e.kind, e.code = kindInternal, "internal_error"
		if errors.Is(err, context.DeadlineExceeded) {
			e.kind, e.code = kindUnavailable, "timeout"
		}
	}
	return e
}

// refusalMessage is what a client is told when a provider refused: a
// refusal, not an outage, so none of the chain's "no provider answered"
// wording. The plugin's own short message follows when it has one (a
// plugin's message never holds the vendor's raw error).
func refusalMessage(err error) string {
	const msg = "the provider refused to answer this request (content filter)"
	if se := (*sdk.Error)(nil); errors.As(err, &se) && se.Message != "" {
		return msg + ": " + se.Message
	}
	return msg
}

// retryAfter is the earliest time a retry may succeed: the hint of an error
// that knows one for a whole chain (a RetryAfter method), else the hint of
// the last provider failure.
func retryAfter(err error) time.Duration {
	var h interface{ RetryAfter() time.Duration }
	if errors.As(err, &h) {
		if d := h.RetryAfter(); d > 0 {
			return d
		}
	}
	return sdk.RetryAfterOf(err)
}

// openai renders e as an OpenAI error body and its status.
func (e *wireError) openai() (int, []byte) {
	ws := e.kind.wire()
	var param *string
	if e.param != "" {
		param = &e.param
	}
	body := struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Param   *string `json:"param"`
			Code    string  `json:"code"`
		} `json:"error"`
	}{}
	body.Error.Message, body.Error.Type, body.Error.Param, body.Error.Code = e.message, ws.openaiType, param, e.code
	return ws.openaiStatus, mustJSON(body)
}

// anthropic renders e as an Anthropic error body and its status.
func (e *wireError) anthropic() (int, []byte) {
	ws := e.kind.wire()
	msg := e.message
	if e.kind == kindContextOverflow {
		// Anthropic clients (Claude Code among them) recognise an overflow by
		// this phrase and compact the conversation.
		msg = "prompt is too long: " + msg
	}
	body := struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}{Type: "error"}
	body.Error.Type, body.Error.Message = ws.anthropicType, msg
	return ws.anthropicStatus, mustJSON(body)
}

// setRetryHeaders tells official clients whether and when to retry.
func (e *wireError) setRetryHeaders(h http.Header) {
	if r := e.kind.wire().shouldRetry; r != "" {
		h.Set("x-should-retry", r)
	}
	if e.retryAfter > 0 {
		secs := int64((e.retryAfter + time.Second - 1) / time.Second)
		h.Set("retry-after", strconv.FormatInt(secs, 10))
		h.Set("retry-after-ms", strconv.FormatInt(e.retryAfter.Milliseconds(), 10))
	}
}

// mustJSON marshals values built here from strings and numbers only, which
// cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("api: marshal %T: %v", v, err))
	}
	return b
}
