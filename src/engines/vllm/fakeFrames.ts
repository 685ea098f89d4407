// What the fake engine writes when it imitates vLLM (./fake.ts): its SSE chunk bodies, byte for
// byte (spec/engine-facts.md §D, spec/constructed-examples/sse_streams.txt: compact JSON from
// pydantic, mid-stream errors from Python's json.dumps with spaces after : and ,), and its API
// server's log lines (spec/engine-facts.md §1, §A), so a traced request can be followed into "its" log.
import { pyFloat, pyStr, pad2 as p2, starletteError, type Usage } from '../fake';

const j = JSON.stringify;

function vllmUsage(u: Usage, firstChunk = false): string {
  return firstChunk
    ? `"usage":{"prompt_tokens":${u.prompt},"total_tokens":${u.prompt},"completion_tokens":0,"completion_tokens_details":null}`
    : `"usage":{"prompt_tokens":${u.prompt},"total_tokens":${u.prompt + u.completion},"completion_tokens":${u.completion}}`;
}

export class VllmChunks {
  constructor(private readonly id: string, private readonly model: string, private readonly created: number, private readonly api: 'chat' | 'completions') {}

  private head(): string {
    const object = this.api === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    return `"id":${j(this.id)},"object":"${object}","created":${this.created},"model":${j(this.model)}`;
  }

  role(usage: Usage | null): string {
    return `{${this.head()},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`
      + `${usage ? ',' + vllmUsage(usage, true) : ''},"prompt_token_ids":null,"prompt_text":null}`;
  }

  content(text: string, usage: Usage | null, finish: string | null = null): string {
    const choice = this.api === 'chat'
      ? `{"index":0,"delta":{"content":${j(text)}},"logprobs":null,"finish_reason":${finish ? j(finish) : 'null'}`
        + `${finish ? ',"stop_reason":null' : ''},"token_ids":null}`
      : `{"index":0,"text":${j(text)},"logprobs":null,"finish_reason":${finish ? j(finish) : 'null'}`
        + ',"stop_reason":null,"prompt_token_ids":null,"token_ids":null}';
    return `{${this.head()},"choices":[${choice}]${usage ? ',' + vllmUsage(usage) : ''}}`;
  }

  /** Chat's final chunk: empty delta with the finish reason (system_fingerprint when usage is off). */
  finish(reason: string, usage: Usage | null): string {
    return `{${this.head()},"choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":${j(reason)},"stop_reason":null,"token_ids":null}]`
      + `${usage ? ',' + vllmUsage(usage) : ',"system_fingerprint":"vllm-0.27.1-fake"'}}`;
  }

  usage(u: Usage): string {
    return `{${this.head()},"choices":[],${vllmUsage(u)},"system_fingerprint":"vllm-0.27.1-fake"}`;
  }

  static error(message: string, type: string, code: number): string {
    return `{"error": {"message": ${j(message)}, "type": ${j(type)}, "param": null, "code": ${code}}}`;
  }

  /** A non-streaming HTTP error body (Starlette JSONResponse: compact). */
  static httpError(message: string, type: string, code: number, param: string | null = null): string {
    return starletteError(message, type, code, param);
  }
}

/** vLLM `_DATE_FORMAT = "%m-%d %H:%M:%S"` (local time, no year, no ms). */
export function vllmTime(d: Date): string {
  return `${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/**
 * One vLLM API server line as the fake engine writes it: the `(APIServer pid=N) ` prefix, then
 * `_FORMAT`. test/unit/logs/engineLogging.test.ts checks it against the newest release's own logging set-up.
 */
export function vllmApiServerLine(pid: number, level: string, at: Date, fileinfo: string, message: string): string {
  return `(APIServer pid=${pid}) ${level} ${vllmTime(at)} [${fileinfo}] ${message}`;
}

export class VllmLog {
  constructor(private readonly pid: number, private readonly write: (line: string) => void) {}

  private line(level: string, fileinfo: string, message: string): void {
    this.write(vllmApiServerLine(this.pid, level, new Date(), fileinfo, message));
  }

  received(externalId: string, maxTokens: number, temperature: number): void {
    const params = 'SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, '
      + `temperature=${pyFloat(temperature)}, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], `
      + `thinking_token_budget=None, include_stop_str_in_output=False, ignore_eos=False, max_tokens=${maxTokens}, min_tokens=0, `
      + 'logprobs=None, prompt_logprobs=None, skip_special_tokens=True, spaces_between_special_tokens=True, structured_outputs=None, extra_args=None)';
    this.line('INFO', 'request_logger.py:63', `Received request ${externalId}: params: ${params}, lora_request: None.`);
  }

  added(internalId: string): void { this.line('INFO', 'async_llm.py:439', `Added request ${internalId}.`); }

  access(client: string, path: string, status: number, reason: string): void {
    // uvicorn's access format, behind vLLM's process prefix.
    this.write(`(APIServer pid=${this.pid}) INFO:     ${client} - "POST ${path} HTTP/1.1" ${status} ${reason}`);
  }

  delta(externalId: string, text: string): void {
    this.line('INFO', 'request_logger.py:98', `Generated response ${externalId} (streaming delta): output: ${pyStr(text)}, finish_reason: None`);
  }

  complete(externalId: string, text: string): void {
    this.line('INFO', 'request_logger.py:98',
      `Generated response ${externalId} (streaming complete): output: ${pyStr(text)}, finish_reason: streaming_complete`);
  }

  /** A client disconnect: the internal id(s) first (abort()), then the external id (generate()). */
  aborted(internalId: string, externalId: string): void {
    this.line('INFO', 'async_llm.py:761', `Aborted request(s) ${internalId}.`);
    this.line('INFO', 'async_llm.py:623', `Request ${externalId} aborted.`);
  }

  failed(externalId: string): void {
    this.line('ERROR', 'serving.py:175', `Request ${externalId} failed with an internal error during generation`);
  }
}
