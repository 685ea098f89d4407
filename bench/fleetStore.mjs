// The fleet-sized stores the fleet benchmarks search: real VictoriaLogs and Jaeger
// (scripts/fleet-tools.mjs) on loopback ports, `lines` lines from `pods` pods (requests of 100
// lines each, interleaved; each request on one pod) and 5,000 traces in `pods` services, one
// ingest per run; and the client child of bench/fleet.mjs (findRequestInFleet in a process that
// does nothing else). Shared by bench/fleet.mjs (client only) and bench/fleetScreen.mjs (the
// editor end to end). Needs the compiled tests (out/test/harness/fleetServers.js).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFleetTools } from '../scripts/fleet-tools.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export const PER_REQUEST = 100;
export const TRACES = 5000;
/** The request searched for: below both the request count (lines) and the trace count. */
export const TARGET = 321;

/** Real VictoriaLogs and Jaeger on loopback ports; stop() ends both and removes their data. */
export async function startFleetStores() {
  const { startJaeger, startVictoriaLogs } = require(join(root, 'out', 'test', 'harness', 'fleetServers.js'));
  const tools = ensureFleetTools();
  const [vl, jaeger] = await Promise.all([startVictoriaLogs(tools.victorialogs), startJaeger(tools.jaeger)]);
  return { vl, jaeger, stop: () => Promise.all([vl.stop(), jaeger.stop()]) };
}

/**
 * Line `step` of request `req` on pod `pod`. Every line is a DEBUG scheduler line naming the
 * request, unless `hops`: then a request's first two lines are vLLM's API-server hop lines as vLLM
 * prints them (Received request …, Added request …), so its document gets hop lenses.
 */
function lineText(req, step, pod, hops) {
  const mm = String(step % 60).padStart(2, '0');
  if (hops && step === 0) {
    return `(APIServer pid=${3000 + pod}) INFO 12-02 10:${mm}:00 [request_logger.py:63] Received request chatcmpl-bench-${req}: params: `
      + 'SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=0.8, top_k=20, '
      + 'min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], thinking_token_budget=None, include_stop_str_in_output=False, '
      + 'ignore_eos=False, max_tokens=64, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, '
      + 'spaces_between_special_tokens=True, structured_outputs=None, extra_args=None), lora_request: None.';
  }
  if (hops && step === 1) return `(APIServer pid=${3000 + pod}) INFO 12-02 10:${mm}:00 [async_llm.py:439] Added request chatcmpl-bench-${req}-0a1b2c3d.`;
  return `(EngineCore_DP0 pid=${4000 + pod}) DEBUG 12-02 10:${mm}:00 [scheduler.py:612] step ${step} scheduled request chatcmpl-bench-${req}-0a1b2c3d`;
}

/**
 * Ingests the lines and the traces. Returns what a search for the target request must find:
 * its id, its pod, its line count and trace id, the window start to ask from, and the ingest time.
 */
export async function ingestFleet(vl, jaeger, { lines, pods, hops = false }) {
  const requests = Math.max(1, Math.floor(lines / PER_REQUEST));
  const t0 = Date.now() - 3600_000;
  const ingestStart = performance.now();
  const CHUNK = 50_000;
  for (let base = 0; base < lines; base += CHUNK) {
    const rows = [];
    for (let i = base; i < Math.min(lines, base + CHUNK); i++) {
      const req = i % requests;
      const step = Math.floor(i / requests);
      const pod = req % pods;
      rows.push({
        _msg: lineText(req, step, pod, hops), _time: new Date(t0 + i * 3).toISOString(), namespace: 'serving', pod: `decode-${pod}`, container: 'vllm',
      });
    }
    await vl.ingest(rows);
  }
  const ingestSeconds = (performance.now() - ingestStart) / 1000;
  const traceId = (r) => r.toString(16).padStart(32, '0').replace(/^0/, 'a');
  const spans = [];
  for (let r = 0; r < TRACES; r++) {
    spans.push({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `vllm-${r % pods}` } }] },
      scopeSpans: [{ scope: { name: 'vllm.llm_engine' }, spans: [{
        traceId: traceId(r), spanId: (r + 1).toString(16).padStart(16, '0'), name: 'llm_request', kind: 2,
        startTimeUnixNano: `${BigInt(t0 + r * 10) * 1_000_000n}`, endTimeUnixNano: `${BigInt(t0 + r * 10 + 800) * 1_000_000n}`,
        attributes: [{ key: 'gen_ai.request.id', value: { stringValue: `chatcmpl-bench-${r}` } }],
      }] }],
    });
  }
  await jaeger.ingest({ resourceSpans: spans }, [traceId(TARGET)]);
  // The target's lines: every line i with i % requests === TARGET (when the store holds that many requests).
  const requestLines = TARGET < requests ? Math.ceil((lines - TARGET) / requests) : 0;
  return {
    requestId: `bench-${TARGET}`, pod: `decode-${TARGET % pods}`, requestLines, traceId: traceId(TARGET), spans: TARGET < TRACES ? 1 : 0,
    startMs: t0 - 60_000, requests, traces: TRACES, ingestSeconds,
  };
}

/**
 * bench/fleet.mjs's client child (`--client`): `runs` searches for `requestId` from `startMs`
 * in a fresh process; its JSON answer (times, lines, streams, spans, problems, peak RSS).
 */
export function runFleetClient(runs, { vlUrl, jaegerUrl, requestId, startMs }) {
  return new Promise((resolve, reject) => {
    const argv = [join(root, 'bench', 'fleet.mjs'), '--runs', String(runs), '--client', vlUrl, jaegerUrl, requestId, String(startMs)];
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b) => { out += b; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`))));
  });
}
