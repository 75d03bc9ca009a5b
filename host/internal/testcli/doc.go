// Command testcli is a fake vendor command-line client (Claude Code,
// Codex, Gemini CLI) for the tests of the cli provider plugin and of the
// host's sandbox and proxy. It uses the standard library only and builds
// with CGO_ENABLED=0: tests build it with go build into a temporary
// directory and configure it as a provider block's command.
//
// Flags, in any order:
//
//	-p PROMPT, --print PROMPT, --prompt PROMPT   the prompt
//	PROMPT                                       or the last plain argument
//	--output-format text|json|jsonl (-o)         stream-json is jsonl; default text
//	--model NAME (-m)                            recorded for the model word
//	--verbose, any other -x or --xyz             ignored
//
// With no prompt in the arguments it reads the prompt from stdin.
//
// Output, like Claude Code's:
//
//	text   the answer and a newline on stdout
//	json   {"type":"result","subtype":"success","is_error":false,"result":"...",
//	        "usage":{"input_tokens":N,"output_tokens":M}}
//	jsonl  {"type":"system","subtype":"init","model":"..."}, then one line
//	       {"type":"assistant","message":{"content":[{"type":"text","text":"chunk"}]}}
//	       per chunk (written separately, a few milliseconds apart), then the
//	       result line as in json
//
// N is the number of words in the prompt, M in the answer.
//
// Its login: it answers only when $HOME/.fakecli/credentials exists.
// Otherwise it behaves like a logged-out client: it prints
// "Invalid API key · Please run /login" (on stdout as an is_error result in
// json and jsonl, on stderr in text) and exits 1.
//
// What it does is chosen by the first of these words found in the prompt,
// so one configured command serves every test:
//
//	(none)          echo: answers "you said: PROMPT" (in jsonl, in several chunks)
//	limit           prints "Claude AI usage limit reached|1767225600" (on stdout;
//	                as an is_error result in json and jsonl) and exits 1
//	hang            sleeps until killed (in jsonl it first sends the chunk "hanging")
//	spawn           starts a copy of itself that hangs, in the same process group
//	                (so a group kill reaches it), answers the chunk "spawned PID"
//	                (PID the copy's), then hangs
//	crash           kills itself with SIGKILL
//	flood           writes "x" without end and without a newline
//	fail            prints "fake failure on stderr" to stderr and exits 3
//	empty           answers nothing (an empty result)
//	model           answers "model: NAME" (the --model flag, or "none")
//	reach URL       GETs URL through $HTTPS_PROXY when set, loopback included
//	                (as Node's proxy agents do), trusting $SSL_CERT_FILE, and
//	                answers "reached URL: STATUS BODY" or "unreachable URL: ERROR"
//	direct HOST:PORT dials TCP directly, ignoring any proxy, and answers
//	                "direct ok" or "direct failed: ERROR"
//	read PATH       answers "read PATH: CONTENT" or "cannot read PATH: ERROR"
//	env NAME        answers the variable's value, or "unset"
//
// It must never be shipped or used outside tests.
package main
