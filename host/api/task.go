package api

import (
	"context"
	"encoding/json"
	"net/http"
)

// The task hint routing prefers providers by (their good_at): the
// x-axon-task header, else metadata.task in either wire format's body. The
// front door passes it on as it came; routing compares it with good_at and
// ignores a hint that is no task name. A hint that fits nothing is no
// error.

// TaskHeader is the request header that carries a task hint.
const TaskHeader = "x-axon-task"

type taskKey struct{}

// TaskOf is the task hint of the front door request ctx belongs to; ""
// when it sent none.
func TaskOf(ctx context.Context) string {
	t, _ := ctx.Value(taskKey{}).(string)
	return t
}

func withTask(ctx context.Context, task string) context.Context {
	if task == "" {
		return ctx
	}
	return context.WithValue(ctx, taskKey{}, task)
}

// metadataTask reads metadata.task: absent, null or a string. Other keys
// of metadata are the client's own and left alone.
func metadataTask(raw json.RawMessage) (string, error) {
	if absent(raw) {
		return "", nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", invalidf("metadata", "want a JSON object")
	}
	t := m["task"]
	if absent(t) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(t, &s); err != nil {
		return "", invalidf("metadata.task", "want a string, the task the request is for (e.g. \"code\")")
	}
	return s, nil
}

// requestTask is r's task hint: the header, else the body's metadata.task.
func requestTask(r *http.Request, c *call) string {
	if h := r.Header.Get(TaskHeader); h != "" {
		return h
	}
	return c.task
}
