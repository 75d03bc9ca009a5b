// The official OpenAI TypeScript client (the `openai` npm package),
// unchanged, against axon: only the base URL differs from a call to
// api.openai.com.
//
//   node client.mjs chat-schema|chat-stream|responses-schema [URL [MODEL]]
//
// URL is axon's front door (the client's base URL is URL/v1), defaulting to
// $AXON_URL, then http://127.0.0.1:7070; MODEL to $AXON_MODEL, then
// "default" (a chain, or CHAIN/PROVIDER). $AXON_TOKEN is the API key when
// axon asks for one. One JSON object goes to stdout; a failure goes to
// stderr with exit status 1. ../npm_test.go runs each mode against a real
// axon serve and checks what this prints.

import assert from 'node:assert/strict';
import OpenAI from 'openai';

const [mode, url = process.env.AXON_URL || 'http://127.0.0.1:7070', model = process.env.AXON_MODEL || 'default'] =
  process.argv.slice(2);

// The client wants a key; axon on loopback asks for none (the Go example
// sends the same placeholder).
const client = new OpenAI({
  baseURL: url.replace(/\/$/, '') + '/v1',
  apiKey: process.env.AXON_TOKEN || 'axon-needs-no-key-on-loopback',
  maxRetries: 0, // a failure shows at once, not after the client's retries
});

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

const modes = {
  // chat.completions.create with a strict json_schema response_format; the
  // client parses the answer.
  async 'chat-schema'() {
    const c = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Rome, as JSON.' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weather, strict: true } },
    });
    assert.equal(c.object, 'chat.completion');
    const text = c.choices[0].message.content;
    return { model: c.model, finish_reason: c.choices[0].finish_reason, text, parsed: JSON.parse(text), schema_sent: weather };
  },

  // A streamed chat with stream_options.include_usage: the last chunk
  // carries the usage, cached prompt tokens included.
  async 'chat-stream'() {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage = null;
    let finish = null;
    for await (const chunk of stream) {
      assert.equal(chunk.object, 'chat.completion.chunk');
      chunks++;
      for (const choice of chunk.choices) {
        text += choice.delta?.content ?? '';
        finish = choice.finish_reason ?? finish;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    assert.notEqual(usage, null, 'no chunk carried usage');
    return {
      text,
      chunks,
      finish_reason: finish,
      usage: {
        prompt_tokens: usage.prompt_tokens,
        completion_tokens: usage.completion_tokens,
        cached_tokens: usage.prompt_tokens_details?.cached_tokens,
      },
    };
  },

  // responses.create with a strict json_schema text.format; output_text is
  // the client's own join of the output.
  async 'responses-schema'() {
    const r = await client.responses.create({
      model,
      input: 'Weather in Rome, as JSON.',
      text: { format: { type: 'json_schema', name: 'weather', schema: weather, strict: true } },
    });
    assert.equal(r.object, 'response');
    return { status: r.status, text: r.output_text, parsed: JSON.parse(r.output_text), schema_sent: weather };
  },
};

if (!Object.hasOwn(modes, mode ?? '')) {
  console.error(`usage: node client.mjs ${Object.keys(modes).join('|')} [URL [MODEL]]`);
  process.exit(2);
}
try {
  console.log(JSON.stringify(await modes[mode]()));
} catch (err) {
  console.error(`client.mjs ${mode}: ${err?.stack ?? err}`);
  process.exit(1);
}
