// The fake engine's SGLang (src/testing/fakeEngine, through ../fakes.ts): the routes an SGLang
// server answers (its own /generate and /get_server_info), the ids it prints (the client's rid as
// given), its frames and lines as it serves (./fakeFrames.ts). It logs no access lines, and a
// client's disconnect stops the stream silently (engine-facts §D).
import type { Completion, ContentFrame, EngineImitation, FakeServerSetup, ImitatedReply, ImitatedRequest, ImitatedServer, Usage } from '../fake';
import { SGLANG_PROFILE } from './profile';
import { SglangChatChunks, SglangGenerateChunks, SglangLog } from './fakeFrames';

/** Qwen3's end-of-turn token (<|im_end|>): what SGLang reports as `matched` when the model stopped on its own. */
const EOS_TOKEN_ID = 151645;

function finishReason(finish: 'stop' | 'length', tokens: number): { type: string; length?: number; matched?: number } {
  return finish === 'stop' ? { type: 'stop', matched: EOS_TOKEN_ID } : { type: 'length', length: tokens };
}

function startServer(setup: FakeServerSetup): ImitatedServer {
  const log = new SglangLog(setup.write);
  return {
    engineCore: null,
    answered: () => { /* SGLang's server prints no access line */ },
    ids: (_api, clientRid) => ({ externalId: clientRid, loggedId: clientRid }),
    continuousNeedsIncludeUsage: false,
    reply: (r) => new SglangReply(log, r),
  };
}

/** One request served the way SGLang serves it: the OpenAI chat API or its own /generate. */
class SglangReply implements ImitatedReply {
  private readonly chat: SglangChatChunks | null;
  private readonly generate: SglangGenerateChunks | null;

  constructor(private readonly log: SglangLog, private readonly r: ImitatedRequest) {
    this.chat = r.api === 'chat' ? new SglangChatChunks(r.externalId, r.model, r.created) : null;
    this.generate = r.api === 'generate' ? new SglangGenerateChunks(r.clientRid, r.promptTokens) : null;
  }

  arrived(): void {
    const { r, log } = this;
    if (r.api === 'chat') log.receivedOpenAI(r.body);
    log.received(r.clientRid, r.api === 'generate' ? String(r.body.text ?? '') : r.promptText, r.maxTokens, r.temperature);
  }

  httpError(status: number, type: string, message: string): string {
    return JSON.stringify({ object: 'error', message, type, param: null, code: status });
  }

  aborted(): void { /* stops silently */ }

  role(): string { return this.chat!.role(); }

  beforeContent(): void { if (this.generate) this.log.prefill(this.r.promptTokens); }

  content(f: ContentFrame): string {
    const { r } = this;
    const json = this.contentJson(f);
    for (let tok = f.from; tok < f.upTo; tok++) this.log.decodeStep(r.promptTokens + tok + 1, 1000 / Math.max(1, f.everyMs / f.tokensPerFrame));
    return json;
  }

  private contentJson(f: ContentFrame): string {
    const { r } = this;
    const usage: Usage = { prompt: r.promptTokens, completion: f.upTo };
    if (this.chat) return this.chat.content(f.text, r.continuous ? usage : null);
    // Its /v1/completions is not imitated: the stream ends there (the connection is reset).
    if (!this.generate) throw new TypeError('fake engine: SGLang /v1/completions is not imitated');
    return this.generate.frame(f.incremental ? f.text : f.full, f.incremental ? f.ids.slice(f.from - f.upTo) : [...f.ids], f.upTo,
      f.last ? finishReason(f.finish, f.replyTokens) : null,
      f.i === 0 ? { response_sent_to_client_ts: Date.now() / 1000 } : f.last ? { e2e_latency: f.sinceArrival / 1000 } : {});
  }

  written(): void { /* no traced engine core */ }

  error(internal: boolean): string {
    const msg = internal ? 'Internal server error' : 'fake engine: scripted bad request';
    const status = internal ? 500 : 400;
    return this.generate ? SglangGenerateChunks.error(msg, status) : SglangChatChunks.error(msg, internal ? 'InternalServerError' : 'BadRequestError', status);
  }

  tail(end: Completion): string[] {
    if (!this.chat) return [];
    const total: Usage = { prompt: this.r.promptTokens, completion: end.completionTokens };
    const frames = [this.chat.finish(end.finish, end.finish === 'stop' ? EOS_TOKEN_ID : null)];
    if (this.r.includeUsage) frames.push(this.chat.usage(total));
    return frames;
  }

  completed(end: Completion): void {
    const { r, log } = this;
    log.reqTimeStats(r.clientRid, r.promptTokens, end.completionTokens, end.sinceArrival(), end.arrivedEpochMs / 1000);
    log.finished(r.clientRid, end.full, end.ids, {
      id: r.clientRid, finish_reason: finishReason(end.finish, end.completionTokens), prompt_tokens: r.promptTokens, weight_version: 'default',
      num_retractions: 0, reasoning_tokens: 0, completion_tokens: end.completionTokens, cached_tokens: 0,
      e2e_latency: Number((end.sinceArrival() / 1000).toFixed(4)),
    });
  }
}

export const SGLANG_FAKE: EngineImitation = {
  id: SGLANG_PROFILE.id,
  apis: new Map([['/v1/chat/completions', 'chat'], ['/v1/completions', 'completions'], ['/generate', 'generate']]),
  getRoutes: new Map(['/get_server_info', '/server_info'].map((path) => [path,
    (s: { model: string; tokensPerFrame: number }) =>
      JSON.stringify({ model_path: s.model, tp_size: 1, version: '0.5.18', stream_interval: s.tokensPerFrame })])),
  unknownModel: () => null,
  start: startServer,
};
