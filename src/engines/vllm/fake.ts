// The fake engine's vLLM (src/testing/fakeEngine, through ../fakes.ts): the routes a vLLM server
// answers, the ids it prints (`chatcmpl-<id>`, `cmpl-<id>`, a completion's `-0` child), its frames
// and API server lines as it serves (./fakeFrames.ts), its access lines, its engine core traced
// like VLLM_TRACE_FUNCTION=1 (./fakeEngineCore.ts), and its llm_request span (engine-facts §E).
import type { Completion, ContentFrame, EngineImitation, FakeServerSetup, ImitatedReply, ImitatedRequest, ImitatedServer, Usage } from '../fake';
import { VLLM_PROFILE } from './profile';
import { VllmChunks, VllmLog } from './fakeFrames';
import { EngineCoreTrace } from './fakeEngineCore';

/** The thread id in the traced engine core's file name. */
const CORE_THREAD = 140211394960256;

function startServer(setup: FakeServerSetup): ImitatedServer {
  const log = new VllmLog(setup.pid, setup.write);
  const t = setup.trace;
  const core = t ? new EngineCoreTrace(t.dir, t.pid ?? setup.pid + 1, CORE_THREAD, setup.write, Date.now(), t.sourceRoot) : null;
  return {
    engineCore: core ? { pid: core.pid, instanceDir: core.instanceDir, path: core.path } : null,
    answered: (client, path, status, reason) => log.access(client, path, status, reason),
    ids(api, clientRid) {
      const externalId = api === 'chat' ? `chatcmpl-${clientRid}` : `cmpl-${clientRid}`;
      return { externalId, loggedId: api === 'completions' ? `${externalId}-0` : externalId };
    },
    continuousNeedsIncludeUsage: true,
    reply: (r) => new VllmReply(setup, log, core, r),
  };
}

/** One request served the way vLLM serves it (chat or completions). */
class VllmReply implements ImitatedReply {
  private readonly chunks: VllmChunks;
  private stepFrom = 0;

  constructor(private readonly setup: FakeServerSetup, private readonly log: VllmLog, private readonly core: EngineCoreTrace | null,
    private readonly r: ImitatedRequest) {
    this.chunks = new VllmChunks(r.externalId, r.model, r.created, r.api === 'chat' ? 'chat' : 'completions');
  }

  arrived(): void {
    const { r, log, core } = this;
    log.received(r.loggedId, r.maxTokens, r.temperature);
    log.added(r.internalId);
    if (core) { const t = this.setup.epochNow(); core.addRequest(t, t + 0.08); }
  }

  httpError(status: number, type: string, message: string): string { return VllmChunks.httpError(message, type, status); }

  // vLLM logs the client's disconnect (engine-facts §D).
  aborted(): void { this.log.aborted(this.r.internalId, this.r.loggedId); }

  role(): string { return this.chunks.role(this.r.continuous ? { prompt: this.r.promptTokens, completion: 0 } : null); }

  beforeContent(): void { this.stepFrom = this.setup.epochNow(); }

  content(f: ContentFrame): string {
    const { r } = this;
    const usage: Usage = { prompt: r.promptTokens, completion: f.upTo };
    const json = this.chunks.content(f.text, r.continuous ? usage : null, r.api === 'completions' && f.last ? f.finish : null);
    if (r.api === 'chat') this.log.delta(r.loggedId, f.text);
    return json;
  }

  written(): void {
    if (!this.core) return;
    const t = this.setup.epochNow();
    this.core.step(this.stepFrom, t - 0.1);
    this.stepFrom = t;
  }

  error(internal: boolean): string {
    const body = internal ? VllmChunks.error('Internal server error', 'InternalServerError', 500)
      : VllmChunks.error('fake engine: scripted bad request', 'BadRequestError', 400);
    if (internal) this.log.failed(this.r.loggedId);
    return body;
  }

  tail(end: Completion): string[] {
    const { r } = this;
    const total: Usage = { prompt: r.promptTokens, completion: end.completionTokens };
    const frames: string[] = [];
    if (r.api === 'chat') frames.push(this.chunks.finish(end.finish, r.continuous ? total : null));
    if (r.includeUsage) frames.push(this.chunks.usage(total));
    return frames;
  }

  completed(end: Completion): void {
    const { r, setup } = this;
    if (r.api === 'chat') this.log.complete(r.loggedId, end.full);
    const exportSpan = setup.exportSpan;
    if (!exportSpan) return;
    // vLLM ends the span in its output processor, before the last frame is written: at the
    // time the schedule writes the tail, not when the response has gone out.
    end.whenSent(() => {
      const e2eMs = Math.min(end.endAtMs, end.sinceArrival());
      const queueMs = 0.4;
      const s = (ms: number) => ms / 1000;
      exportSpan({
        defaultService: 'vllm', processAttribute: 'vllm.process_id', scope: 'vllm.llm_engine', name: 'llm_request', kind: 2, // SERVER
        startEpochMs: end.arrivedEpochMs, endEpochMs: end.arrivedEpochMs + e2eMs,
        ...(r.traceparent ? { traceparent: r.traceparent } : {}),
        attributes: [
          ['gen_ai.request.id', r.loggedId],
          ['gen_ai.latency.time_to_first_token', s(end.firstMs)],
          ['gen_ai.latency.e2e', s(e2eMs)],
          ['gen_ai.latency.time_in_queue', s(queueMs)],
          ['gen_ai.latency.time_in_model_prefill', s(end.firstMs - queueMs)],
          ['gen_ai.latency.time_in_model_decode', s(e2eMs - end.firstMs)],
          ['gen_ai.latency.time_in_model_inference', s(e2eMs - queueMs)],
          ['gen_ai.usage.prompt_tokens', r.promptTokens],
          ['gen_ai.usage.completion_tokens', end.completionTokens],
          ['gen_ai.request.max_tokens', r.maxTokens],
        ],
      });
    });
  }
}

export const VLLM_FAKE: EngineImitation = {
  id: VLLM_PROFILE.id,
  apis: new Map([['/v1/chat/completions', 'chat'], ['/v1/completions', 'completions']]),
  getRoutes: new Map([['/version', () => '{"version":"0.27.1"}']]),
  unknownModel(_api, requested, model) {
    if (requested === undefined || requested === model) return null;
    return VllmChunks.httpError(`The model \`${String(requested)}\` does not exist.`, 'NotFoundError', 404, 'model');
  },
  start: startServer,
};
