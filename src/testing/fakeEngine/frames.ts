// Byte-exact SSE chunk bodies of vLLM and SGLang (spec/engine-facts.md §D,
// spec/constructed-examples/sse_streams.txt). Normal chunks are compact JSON (pydantic /
// msgspec / orjson); mid-stream errors are Python json.dumps, with spaces after : and ,.

export interface Usage { prompt: number; completion: number }

const j = JSON.stringify;

export function sse(data: string): string {
  return `data: ${data}\n\n`;
}

export const DONE = sse('[DONE]');

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
    return `{"error":{"message":${j(message)},"type":${j(type)},"param":${param === null ? 'null' : j(param)},"code":${code}}}`;
  }
}

export class SglangChatChunks {
  constructor(private readonly id: string, private readonly model: string, private readonly created: number) {}

  private wrap(delta: string, finish: string | null, usage: Usage | null, matchedStop: number | null = null): string {
    const usageJson = usage
      ? `,"usage":{"prompt_tokens":${usage.prompt},"total_tokens":${usage.prompt + usage.completion},"completion_tokens":${usage.completion}}`
      : '';
    return `{"id":${j(this.id)},"object":"chat.completion.chunk","created":${this.created},"model":${j(this.model)}`
      + `,"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish ? j(finish) : 'null'},"matched_stop":${matchedStop ?? 'null'}}]`
      + `${usageJson}}`;
  }

  role(): string { return this.wrap('{"reasoning_content":null,"role":"assistant","content":""}', null, null); }
  content(text: string, usage: Usage | null): string { return this.wrap(`{"reasoning_content":null,"content":${j(text)}}`, null, usage); }
  /** The separate finish chunk; `matchedStop` is the stop token id when the model ended on its own. */
  finish(reason: string, matchedStop: number | null = null): string { return this.wrap('{"reasoning_content":null}', reason, null, matchedStop); }

  usage(u: Usage): string {
    return `{"id":${j(this.id)},"object":"chat.completion.chunk","created":${this.created},"model":${j(this.model)},"choices":[]`
      + `,"usage":{"prompt_tokens":${u.prompt},"total_tokens":${u.prompt + u.completion},"completion_tokens":${u.completion}`
      + ',"prompt_tokens_details":null,"reasoning_tokens":0}}';
  }

  static error(message: string, type: string, code: number): string {
    return `{"error": {"object": "error", "message": ${j(message)}, "type": ${j(type)}, "param": null, "code": ${code}}}`;
  }
}

export class SglangGenerateChunks {
  constructor(private readonly rid: string, private readonly promptTokens: number) {}

  frame(text: string, outputIds: number[], completionTokens: number, finish: { type: string; length?: number } | null, extra: Record<string,
    number> = {}): string {
    const meta: Record<string, unknown> = {
      id: this.rid, finish_reason: finish, prompt_tokens: this.promptTokens, weight_version: 'default', num_retractions: 0,
      reasoning_tokens: 0, completion_tokens: completionTokens, cached_tokens: 0, ...extra,
    };
    return j({ text, output_ids: outputIds, meta_info: meta });
  }

  static error(message: string, code: number): string {
    return j({ error: { message, type: 'invalid_request_error', code, retryable: false } });
  }
}
