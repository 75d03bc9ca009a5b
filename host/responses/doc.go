// Package responses keeps the OpenAI Responses API responses that clients
// asked to store (store, true by default), so previous_response_id can
// continue a conversation and GET and DELETE /v1/responses/{id} can read
// and remove one. It is the host/api ResponseStore of axon serve: a SQLite
// database (modernc.org/sqlite, as host/usage) at
// <state_dir>/responses.db, opened on first use, with a retention after
// which a response is gone (deleted as later ones are stored); without a
// state directory, a bounded store in memory.
//
// It keeps what a client sent and what a model answered, as the front
// door hands it over: it must never be given, nor write, a credential, a
// provider's base URL or a header, and never grow without bound.
package responses
