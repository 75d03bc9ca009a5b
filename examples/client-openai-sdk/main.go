// Command client-openai-sdk asks a running `axon serve` one question with
// the official OpenAI Go client (github.com/openai/openai-go/v3), unchanged,
// and streams the answer:
//
//	go run . -url http://127.0.0.1:7070 "Why is the sky blue?"
//
// Only the base URL points the client at axon. The API key it sends is
// axon's own front-door token ($AXON_TOKEN, needed when axon listens beyond
// loopback) or a placeholder: the provider credentials stay in axon, which
// picks the provider by the model name, a chain ("default") or
// CHAIN/PROVIDER. Whichever provider answers, and in whichever wire format,
// the client sees OpenAI Chat Completions.
//
// This program is a client, not a plugin: it is its own module, imports
// nothing of axon, and needs nothing from axon beyond its HTTP front door.
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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// placeholderKey is sent when there is no axon token: the client wants a
// key, and axon on loopback asks for none.
const placeholderKey = "axon-needs-no-key-on-loopback"

func main() {
	url := flag.String("url", "http://127.0.0.1:7070", "axon's front door (the client's base URL is this plus /v1)")
	model := flag.String("model", "default", "a chain, or CHAIN/PROVIDER to pin one provider")
	maxTokens := flag.Int64("max-tokens", 1024, "the answer's token limit")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: client-openai-sdk [-url URL] [-model CHAIN] [-max-tokens N] PROMPT")
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
		fmt.Fprintln(os.Stderr, "client-openai-sdk:", err)
		os.Exit(1)
	}
}

// run streams the answer to out and a one-line summary to info.
func run(ctx context.Context, out, info io.Writer, url, token, model string, maxTokens int64, prompt string) error {
	var raw *http.Response
	c, err := ask(ctx, newClient(url, token), out, openai.ChatCompletionNewParams{
		Model:               model,
		MaxCompletionTokens: openai.Int(maxTokens),
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
	}, option.WithResponseInto(&raw))
	if err != nil {
		return err
	}
	provider := "?"
	if raw != nil && raw.Header.Get("x-axon-provider") != "" {
		provider = raw.Header.Get("x-axon-provider")
	}
	_, err = fmt.Fprintf(info, "\n[%s via axon provider %s: finish_reason=%s prompt_tokens=%d cached_tokens=%d completion_tokens=%d]\n",
		c.Model, provider, c.Choices[0].FinishReason, c.Usage.PromptTokens, c.Usage.PromptTokensDetails.CachedTokens, c.Usage.CompletionTokens)
	return err
}

// newClient is an OpenAI client for axon's front door at url, with nothing
// changed but the base URL and the key.
func newClient(url, token string) openai.Client {
	if token == "" {
		token = placeholderKey
	}
	return openai.NewClient(option.WithBaseURL(strings.TrimSuffix(url, "/")+"/v1/"), option.WithAPIKey(token))
}

// ask streams one answer, with usage: each text delta goes to out as it
// arrives, and the completion the client's ChatCompletionAccumulator builds
// from the chunks is returned.
func ask(ctx context.Context, client openai.Client, out io.Writer, params openai.ChatCompletionNewParams, opts ...option.RequestOption) (openai.ChatCompletion, error) {
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		chunk := stream.Current()
		if !acc.AddChunk(chunk) {
			return acc.ChatCompletion, fmt.Errorf("accumulating chunk %s: out of order or malformed", chunk.ID)
		}
		for _, ch := range chunk.Choices {
			if ch.Delta.Content == "" {
				continue
			}
			if _, err := io.WriteString(out, ch.Delta.Content); err != nil {
				return acc.ChatCompletion, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return acc.ChatCompletion, fmt.Errorf("streaming from axon: %w", err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return acc.ChatCompletion, errors.New("the stream ended without a finish reason")
	}
	return acc.ChatCompletion, nil
}
