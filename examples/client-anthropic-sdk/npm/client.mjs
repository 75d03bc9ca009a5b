// The official Anthropic TypeScript SDK (@anthropic-ai/sdk), unchanged,
// against axon: only the base URL differs from a call to api.anthropic.com.
//
//   node client.mjs caching|stream|structured [URL [MODEL]]
//
// URL defaults to $AXON_URL, then http://127.0.0.1:7070; MODEL to
// $AXON_MODEL, then "default" (a chain, or CHAIN/PROVIDER). $AXON_TOKEN is
// the API key when axon asks for one. One JSON object goes to stdout; a
// failure goes to stderr with exit status 1. ../npm_test.go runs each mode
// against a real axon serve and checks what this prints.

import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema';

const [mode, url = process.env.AXON_URL || 'http://127.0.0.1:7070', model = process.env.AXON_MODEL || 'default'] =
  process.argv.slice(2);

// The SDK wants a key; axon on loopback asks for none (the Go example sends
// the same placeholder).
const client = new Anthropic({
  baseURL: url,
  apiKey: process.env.AXON_TOKEN || 'axon-needs-no-key-on-loopback',
  maxRetries: 0, // a failure shows at once, not after the SDK's retries
});

// A request with three cache breakpoints: the first system block (for an
// hour), the user's content block and the tool.
const cached = {
  model,
  max_tokens: 256,
  system: [
    { type: 'text', text: 'You are a meteorologist. The manual follows.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    { type: 'text', text: 'Answer in one sentence.' },
  ],
  messages: [
    {
      role: 'user',
      content: [{ type: 'text', text: 'What does the manual say about fog?', cache_control: { type: 'ephemeral' } }],
    },
  ],
  tools: [
    {
      name: 'lookup_manual',
      description: 'Looks a term up in the manual.',
      input_schema: { type: 'object', properties: { term: { type: 'string' } }, required: ['term'] },
      cache_control: { type: 'ephemeral' },
    },
  ],
};

// The usage fields a caching client reads, and the answer.
function summary(msg) {
  assert.equal(msg.type, 'message');
  assert.equal(msg.role, 'assistant');
  const u = msg.usage;
  return {
    id: msg.id,
    stop_reason: msg.stop_reason,
    text: msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''),
    usage: {
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cache_read_input_tokens: u.cache_read_input_tokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens,
    },
  };
}

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'integer' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};

const modes = {
  // messages.create, not streamed.
  async caching() {
    return summary(await client.messages.create(cached));
  },

  // messages.stream: the SDK accumulates the events into finalMessage.
  async stream() {
    const stream = client.messages.stream(cached);
    let deltas = 0;
    stream.on('text', () => deltas++);
    const out = summary(await stream.finalMessage());
    return { ...out, text_events: deltas };
  },

  // messages.parse with output_config.format json_schema: the SDK parses
  // the answer into parsed_output.
  async structured() {
    const format = jsonSchemaOutputFormat(weather);
    const msg = await client.messages.parse({
      model,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'The weather in Rome, as JSON.' }],
      output_config: { format },
    });
    assert.notEqual(msg.parsed_output, null, 'the SDK parsed no output');
    return { ...summary(msg), parsed_output: msg.parsed_output, schema_sent: format.schema };
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
