// Command client-anthropic-sdk asks a running `axon serve` one question with
// the official Anthropic Go SDK, unchanged, and streams the answer:
//
//	go run ./examples/client-anthropic-sdk -url http://127.0.0.1:7070 "Why is the sky blue?"
//
// Only the base URL points the SDK at axon. The API key it sends is axon's
// own front-door token ($AXON_TOKEN, needed when axon listens beyond
// loopback) or a placeholder: the provider credentials stay in axon, which
// picks the provider by the model name, a chain ("default") or
// CHAIN/PROVIDER. Whichever provider answers, and in whichever wire format,
// the client sees Anthropic Messages.
//
// This program is a client, not a plugin: it must never import axon's host
// packages, and it needs nothing from axon beyond its HTTP front door.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// placeholderKey is sent when there is no axon token: the SDK wants a key,
// and axon on loopback asks for none.
const placeholderKey = "axon-needs-no-key-on-loopback"

func main() {
	url := flag.String("url", "http://127.0.0.1:7070", "axon's front door")
	model := flag.String("model", "default", "a chain, or CHAIN/PROVIDER to pin one provider")
	maxTokens := flag.Int64("max-tokens", 1024, "the answer's token limit")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: client-anthropic-sdk [-url URL] [-model CHAIN] [-max-tokens N] PROMPT")
		flag.PrintDefaults()
	}
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, os.Stderr, *url, os.Getenv("AXON_TOKEN"), *model, *maxTokens, prompt); err != nil {
		fmt.Fprintln(os.Stderr, "client-anthropic-sdk:", err)
		os.Exit(1)
	}
}

// run streams the answer to out and a one-line summary to info.
func run(ctx context.Context, out, info io.Writer, url, token, model string, maxTokens int64, prompt string) error {
	var raw *http.Response
	msg, err := ask(ctx, newClient(url, token), out, anthropic.MessageNewParams{
		Model:     model,
		MaxTokens: maxTokens,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}, option.WithResponseInto(&raw))
	if err != nil {
		return err
	}
	provider := "?"
	if raw != nil && raw.Header.Get("x-axon-provider") != "" {
		provider = raw.Header.Get("x-axon-provider")
	}
	_, err = fmt.Fprintf(info, "\n[%s via axon provider %s: stop_reason=%s input_tokens=%d output_tokens=%d]\n",
		msg.Model, provider, msg.StopReason, msg.Usage.InputTokens, msg.Usage.OutputTokens)
	return err
}

// newClient is an SDK client for axon at url, with nothing changed but the
// base URL and the key.
func newClient(url, token string) anthropic.Client {
	if token == "" {
		token = placeholderKey
	}
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey(token))
}

// ask streams one answer: each text delta goes to out as it arrives, and
// the message the SDK accumulates from the events is returned.
func ask(ctx context.Context, client anthropic.Client, out io.Writer, params anthropic.MessageNewParams, opts ...option.RequestOption) (anthropic.Message, error) {
	stream := client.Messages.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var msg anthropic.Message
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return msg, fmt.Errorf("accumulating the stream: %w", err)
		}
		if d, ok := ev.AsAny().(anthropic.ContentBlockDeltaEvent); ok && d.Delta.Type == "text_delta" {
			if _, err := io.WriteString(out, d.Delta.Text); err != nil {
				return msg, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return msg, fmt.Errorf("streaming from axon: %w", err)
	}
	if msg.StopReason == "" {
		return msg, errors.New("the stream ended without a stop reason")
	}
	return msg, nil
}
