package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ResponseStore keeps the responses of the Responses API that asked to be
// stored (store, true by default): previous_response_id continues one, and
// GET and DELETE /v1/responses/{id} read and remove one. It holds what the
// client sent and what the model answered, never a credential.
type ResponseStore interface {
	// Get is the response id; ErrResponseNotFound when there is none (or
	// it has expired).
	Get(ctx context.Context, id string) (StoredResponse, error)
	Put(ctx context.Context, r StoredResponse) error
	// Delete removes response id, reporting whether there was one.
	Delete(ctx context.Context, id string) (bool, error)
}

// StoredResponse is one kept response.
type StoredResponse struct {
	ID        string
	CreatedAt time.Time
	// Response is the response object as the client got it.
	Response json.RawMessage
	// Items is the conversation the response answered, as a JSON array of
	// input items: the stored conversation it continued, then the
	// request's own input.
	Items json.RawMessage
}

// ErrResponseNotFound: no response has the id.
var ErrResponseNotFound = errors.New("no such response")

// WithResponses keeps Responses API responses in st. Without it a request
// asking to be stored is answered and its store listed in x-axon-ignored,
// and previous_response_id is refused.
func WithResponses(st ResponseStore) Option {
	return func(c *config) { c.responses = st }
}

// createResponse serves POST /v1/responses: the request is decoded after
// the conversation it continues, answered like the other formats, and
// stored once answered whole.
func (s *server) createResponse(w *recorder, r *http.Request) {
	x := s.serve(w, r, responsesDialect{}, s.decodeResponse)
	if x == nil || x.final == nil || !x.c.responses.store {
		return
	}
	rc := x.c.responses
	items, err := json.Marshal(rc.items)
	if err == nil {
		err = s.cfg.responses.Put(r.Context(), StoredResponse{ID: x.id, CreatedAt: s.cfg.now(), Response: x.final, Items: items})
	}
	if err != nil {
		// The client has its answer; only a later previous_response_id
		// will miss it, and is told so then.
		w.rec.Code = "response_not_stored"
	}
}

// decodeResponse reads the stored conversation previous_response_id names,
// then the request after it.
func (s *server) decodeResponse(ctx context.Context, body []byte) (dialect, *call, error) {
	var head struct {
		Previous string `json:"previous_response_id"`
	}
	_ = json.Unmarshal(body, &head) // a malformed body is decodeResponses' to report
	var prior []json.RawMessage
	if head.Previous != "" {
		var err error
		if prior, err = s.conversation(ctx, head.Previous); err != nil {
			return responsesDialect{}, nil, err
		}
	}
	c, err := decodeResponses(body, prior)
	if err != nil {
		return responsesDialect{}, nil, err
	}
	if s.cfg.responses == nil && c.responses.store {
		// Nothing can be kept. A client that asked for it is told; one
		// that took the default did not send the field.
		c.responses.store = false
		if c.responses.asked {
			if c.ignored != "" {
				c.ignored += ","
			}
			c.ignored += "store"
		}
	}
	return responsesDialect{c: c}, c, nil
}

// conversation is response id's conversation as input items: the items it
// answered, then its output.
func (s *server) conversation(ctx context.Context, id string) ([]json.RawMessage, error) {
	if s.cfg.responses == nil {
		return nil, unsupportedf("previous_response_id", "this axon keeps no responses, so none can be continued: send the whole conversation as input")
	}
	st, err := s.cfg.responses.Get(ctx, id)
	if errors.Is(err, ErrResponseNotFound) {
		return nil, &wireError{kind: kindInvalid, code: "previous_response_not_found", param: "previous_response_id",
			message: fmt.Sprintf("previous_response_id: no stored response has id %q (never stored, deleted, or expired)", id)}
	}
	if err != nil {
		return nil, &wireError{kind: kindInternal, code: "store_failed", message: "reading the stored response: " + err.Error()}
	}
	var items []json.RawMessage
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if json.Unmarshal(st.Items, &items) != nil || json.Unmarshal(st.Response, &resp) != nil {
		return nil, &wireError{kind: kindInternal, code: "store_failed", message: fmt.Sprintf("stored response %q is damaged", id)}
	}
	return append(items, resp.Output...), nil
}

// getResponse serves GET /v1/responses/{id}.
func (s *server) getResponse(w *recorder, r *http.Request) {
	st, ok := s.stored(w, r)
	if ok {
		writeJSON(w, http.StatusOK, st.Response)
	}
}

// inputItems serves GET /v1/responses/{id}/input_items: the conversation
// the response answered, oldest first, in one page.
func (s *server) inputItems(w *recorder, r *http.Request) {
	st, ok := s.stored(w, r)
	if !ok {
		return
	}
	var items []json.RawMessage
	if json.Unmarshal(st.Items, &items) != nil {
		writeError(w, responsesDialect{}, &wireError{kind: kindInternal, code: "store_failed", message: "the stored response is damaged"})
		return
	}
	page := struct {
		Object  string            `json:"object"`
		Data    []json.RawMessage `json:"data"`
		FirstID *string           `json:"first_id"`
		LastID  *string           `json:"last_id"`
		HasMore bool              `json:"has_more"`
	}{Object: "list", Data: items}
	if page.Data == nil {
		page.Data = []json.RawMessage{}
	}
	writeJSON(w, http.StatusOK, mustJSON(page))
}

// deleteResponse serves DELETE /v1/responses/{id}.
func (s *server) deleteResponse(w *recorder, r *http.Request) {
	if s.noStore(w) {
		return
	}
	id := r.PathValue("id")
	found, err := s.cfg.responses.Delete(r.Context(), id)
	switch {
	case err != nil:
		writeError(w, responsesDialect{}, &wireError{kind: kindInternal, code: "store_failed", message: "deleting the response: " + err.Error()})
	case !found:
		writeError(w, responsesDialect{}, responseNotFound(id))
	default:
		writeJSON(w, http.StatusOK, mustJSON(map[string]any{"id": id, "object": "response", "deleted": true}))
	}
}

// stored reads the response the path names, answering the error itself.
func (s *server) stored(w *recorder, r *http.Request) (StoredResponse, bool) {
	if s.noStore(w) {
		return StoredResponse{}, false
	}
	id := r.PathValue("id")
	st, err := s.cfg.responses.Get(r.Context(), id)
	switch {
	case errors.Is(err, ErrResponseNotFound):
		writeError(w, responsesDialect{}, responseNotFound(id))
	case err != nil:
		writeError(w, responsesDialect{}, &wireError{kind: kindInternal, code: "store_failed", message: "reading the response: " + err.Error()})
	default:
		return st, true
	}
	return StoredResponse{}, false
}

func (s *server) noStore(w *recorder) bool {
	if s.cfg.responses != nil {
		return false
	}
	writeError(w, responsesDialect{}, &wireError{kind: kindNotFound, code: "not_found", message: "this axon keeps no responses"})
	return true
}

func responseNotFound(id string) *wireError {
	return &wireError{kind: kindNotFound, code: "not_found", message: fmt.Sprintf("no stored response has id %q", id)}
}
