// What the fake engine writes when it imitates SGLang (./fake.ts): its SSE chunk bodies, byte for
// byte (spec/engine-facts.md §D: the OpenAI-compatible chat chunks, /generate's frames, the
// json.dumps error bodies), and its log lines (spec/engine-facts.md §2, §B).
import { pyFloat, pyRepr, pyStr, pad2 as p2, type Usage } from '../fake';

const j = JSON.stringify;

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

/** SGLang `%Y-%m-%d %H:%M:%S`, with `.mmm` when SGLANG_LOG_MS is set. */
export function sglangTime(d: Date, ms: boolean): string {
  const base = `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
  return ms ? `${base}.${String(d.getMilliseconds()).padStart(3, '0')}` : base;
}

/**
 * One SGLang line: configure_logger's `[%(asctime)s{.%(msecs)03d}{prefix}] %(message)s`, where the
 * prefix is a rank tag (` TP0`) or empty. engineLogging.test.ts checks it against the releases' own set-up.
 */
export function sglangLine(at: Date, ms: boolean, prefix: string, message: string): string {
  return `[${sglangTime(at, ms)}${prefix}] ${message}`;
}

export class SglangLog {
  private decodeLines = 0;
  constructor(private readonly write: (line: string) => void, private readonly logMs = true) {}

  /** Request-logger lines: their own format, no rank, never milliseconds. */
  private request(message: string): void { this.write(sglangLine(new Date(), false, '', message)); }
  /** Scheduler lines (TP=1: no rank tag). */
  private scheduler(message: string): void { this.write(sglangLine(new Date(), this.logMs, '', message)); }

  receivedOpenAI(body: Record<string, unknown>): void { this.request(`Receive OpenAI: obj=${pyRepr(body)}`); }

  received(rid: string, text: string, maxTokens: number, temperature: number): void {
    this.request(`Receive: obj=GenerateReqInput(rid=${pyStr(rid)}, session_id=None, text=${pyStr(text)}, input_ids=None, input_embeds=None, `
      + 'image_data=None, video_data=None, audio_data=None, '
      + `sampling_params={'max_new_tokens': ${maxTokens}, 'temperature': ${pyFloat(temperature)}}, return_logprob=False, stream=True)`);
  }

  prefill(newTokens: number): void {
    this.scheduler(`Prefill batch, #new-seq: 1, #new-token: ${newTokens}, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, `
      + '#pending-token: 0, cuda graph: False, input throughput (token/s): 0.00');
  }

  /** SGLang prints a decode line every --decode-log-interval (40) iterations. */
  decodeStep(totalTokens: number, throughput: number): void {
    this.decodeLines++;
    if (this.decodeLines % 40 !== 0) return;
    this.scheduler(`Decode batch, #running-req: 1, #token: ${totalTokens}, token usage: 0.00, cuda graph: True, `
      + `gen throughput (token/s): ${throughput.toFixed(2)}, #queue-req: 0`);
  }

  reqTimeStats(rid: string, inputLen: number, outputLen: number, forwardMs: number, entryEpochS: number): void {
    this.scheduler(`ReqTimeStats(rid=${rid}, input_len=${inputLen}, cached_input_len=0, output_len=${outputLen}, attempts=1, type=unified): `
      + `queue_duration=0.05ms, forward_duration=${forwardMs.toFixed(2)}ms, entry_time=${entryEpochS.toFixed(3)}`);
  }

  finished(rid: string, text: string, outputIds: number[], meta: Record<string, unknown>): void {
    const out = pyRepr({ text, output_ids: outputIds, meta_info: meta });
    this.request(`Finish: obj=GenerateReqInput(rid=${pyStr(rid)}, session_id=None, text=None, input_ids=None, stream=True), out=${out}`);
  }
}
