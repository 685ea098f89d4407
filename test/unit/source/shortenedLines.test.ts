// Lines shortened by whoever pasted them (issue 10): cut at a terminal's width, or with text left
// out in the middle (`...`, `…`, `[...]`). What they still show of a statement's constant text names
// it: the opening words, and the closing words after the mark; a contradicting part names nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compilePattern, elidedWeight, matchesPattern, shortenedWeight, WILD } from '../../../src/core/source/messagePattern';

// SGLang 0.4's model_runner: f"Load weight end. type={…}, dtype={…}, avail mem={…:.2f} GB"
const LOAD_END = compilePattern(['Load weight end. type=', WILD, ', dtype=', WILD, ', avail mem=', WILD, ' GB']);

test('text left out in the middle: the opening and the closing words both count', () => {
  // `Load weight end. type=` + the `,` that opens `, dtype=`; `avail mem=` + ` GB` after the mark.
  assert.equal(elidedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, ... avail mem=61.02 GB'), 22 + 1 + 10 + 3);
  assert.equal(elidedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, […] avail mem=61.02 GB'), 22 + 1 + 10 + 3);
  assert.equal(elidedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, dtype=torch.bfloat16, avail m…'), 22 + 8 + 9);
});

test('closing words the statement does not print, or an opening it does not print: no match', () => {
  assert.equal(elidedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, ... all ranks are ready'), -1);
  assert.equal(elidedWeight(LOAD_END, 'Load weight begin. ... avail mem=61.02 GB'), -1);
  // With a mark, the text after it is no value cut short: the plain cut-short reading does not apply.
  assert.equal(shortenedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, ... all ranks are ready'), -1);
});

test('a line cut short without a mark still matches by its opening', () => {
  assert.equal(shortenedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, dtype=torch.bfl'), 22 + 8);
  assert.equal(elidedWeight(LOAD_END, 'Load weight end. type=DeepseekV2ForCausalLM, dtype=torch.bfl'), -1);
});

test('a line printed in full by another wording is no cut line: it ends as the statement ends, with its middle words missing', () => {
  // vLLM 0.3's request line (async_llm_engine.py) against 0.2's printed line (vllm-project/vllm#2067).
  const V03 = compilePattern(['Received request ', WILD, ': prompt: ', WILD, ', prefix_pos: ', WILD, ',sampling_params: ', WILD,
    ', prompt_token_ids: ', WILD, ', lora_request: ', WILD, '.']);
  const v02 = "Received request cmpl-5f1c6a2f: prompt: 'Hello, my name is', sampling params: SamplingParams(n=1, temperature=0.0), prompt token ids: [1, 15043, 29892].";
  assert.equal(shortenedWeight(V03, v02), -1);
  // The same line cut inside its prompt is still 0.3's, by its opening words.
  assert.equal(shortenedWeight(V03, "Received request cmpl-5f1c6a2f: prompt: 'Hello, my na"), 17 + 10);
});

test('a field does not swallow a joining word, nor is a line ending on a whole word of the statement cut there', () => {
  // SGLang 0.5.23's `f"Using {backend_name} attention backend{reason_suffix}"` against an older release's line.
  const selector = compilePattern(['Using ', WILD, ' attention backend', WILD], true);
  assert.equal(matchesPattern(selector, 'Using fa3 as attention backend'), false);
  assert.equal(matchesPattern(selector, 'Using fa3 attention backend'), true);
  assert.equal(matchesPattern(selector, 'Using flash attn 3 attention backend'), true);
  // model_hook.py's `f"Using {attention_backend} as attention backend for {model_arch}."`.
  const hook = compilePattern(['Using ', WILD, ' as attention backend for ', WILD, '.']);
  assert.equal(shortenedWeight(hook, 'Using fa3 as attention backend'), -1);
  assert.ok(shortenedWeight(hook, 'Using fa3 as attention back') > 0);
  assert.ok(shortenedWeight(hook, 'Using fa3 as attention backend fo') > 0);
});
