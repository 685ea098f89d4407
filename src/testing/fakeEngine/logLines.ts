// Server log lines in the engines' real formats (spec/engine-facts.md §1, §2, §A, §B),
// so a traced request against the fake engine can be followed into "its" log.

/** Python's repr() of a str: single quotes unless the text has ' and no ". */
export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of JSON-like data (dicts, lists, str, numbers, True/False/None). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** Python float repr for a temperature etc.: 0 → 0.0. */
export function pyFloat(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

const p2 = (n: number) => String(n).padStart(2, '0');

/** vLLM `_DATE_FORMAT = "%m-%d %H:%M:%S"` (local time, no year, no ms). */
export function vllmTime(d: Date): string {
  return `${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/** SGLang `%Y-%m-%d %H:%M:%S`, with `.mmm` when SGLANG_LOG_MS is set. */
export function sglangTime(d: Date, ms: boolean): string {
  const base = `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
  return ms ? `${base}.${String(d.getMilliseconds()).padStart(3, '0')}` : base;
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
