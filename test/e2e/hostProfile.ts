// A CPU profile of the extension host while the browser test runs, to say what holds the host
// between two moments HopLens names in its output channel (e.g. VS Code handing a log over and
// HopLens's read of it beginning). code-server starts the host with an inspector on a port
// (the workbench URL's payload `inspect-extensions`, honoured with the smoke-test driver on:
// workbench.ts); this talks to it over the DevTools protocol on
// 127.0.0.1 and reads the profile's samples in the span, each put down to its function: HopLens's
// (a frame of its extension's dist/) or VS Code's, garbage collection, idle, or no sample at all
// (the thread was not running). Diagnostic only (HOPLENS_FIRST_LENS_PROFILE=1): nothing asserted.
// Node 20 needs --experimental-websocket for the client (Node 22 has WebSocket built in).
import { createServer } from 'node:net';
import type { CpuProfile, CpuProfileNode } from '../bench/stallAttribution';

interface Socket {
  send(data: string): void;
  close(): void;
  addEventListener(type: 'message', fn: (e: { data: string }) => void): void;
  addEventListener(type: 'open' | 'error' | 'close', fn: (e: unknown) => void): void;
}
type SocketCtor = new (url: string) => Socket;

/** A free port on 127.0.0.1 for the host's inspector. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export class HostProfiler {
  private id = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly ws: Socket) {
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(e.data) as { id?: number; result?: unknown; error?: { message: string } };
      const w = msg.id === undefined ? undefined : this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id!);
      if (msg.error) w.reject(new Error(msg.error.message)); else w.resolve(msg.result);
    });
  }

  /** Connects to the extension host's inspector on `port` (retrying while the host starts). */
  static async connect(port: number, timeoutMs = 60_000): Promise<HostProfiler> {
    const Ctor = (globalThis as unknown as { WebSocket?: SocketCtor }).WebSocket;
    if (!Ctor) throw new Error('no WebSocket in this Node: run mocha with NODE_OPTIONS=--experimental-websocket (Node 20)');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as { webSocketDebuggerUrl: string }[];
        const ws = new Ctor(targets[0].webSocketDebuggerUrl);
        await new Promise((resolve, reject) => { ws.addEventListener('open', resolve); ws.addEventListener('error', reject); });
        const p = new HostProfiler(ws);
        await p.post('Profiler.enable');
        await p.post('Profiler.setSamplingInterval', { interval: 500 });
        return p;
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`no extension host inspector on 127.0.0.1:${port}: ${(e as Error).message}`, { cause: e });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  post<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = ++this.id;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  start(): Promise<unknown> { return this.post('Profiler.start'); }

  /** The profile since start(), and the host's wall clock against the profile's (µs of the monotonic clock). */
  async stop(): Promise<{ profile: CpuProfile; wallToProfileUs: (wallMs: number) => number }> {
    const { profile } = await this.post<{ profile: CpuProfile }>('Profiler.stop');
    const { result } = await this.post<{ result: { value: string } }>('Runtime.evaluate', {
      expression: 'JSON.stringify([Date.now(), Number(process.hrtime.bigint() / 1000n)])', returnByValue: true,
    });
    const [wall, mono] = JSON.parse(result.value) as [number, number];
    return { profile, wallToProfileUs: (wallMs) => mono + (wallMs - wall) * 1000 };
  }

  close(): void { this.ws.close(); }
}

/** Where a span's time went: by owner, and the functions that took the most of it (self and with callees). */
export interface SpanReport {
  spanMs: number;
  byOwner: Record<'hoplens' | 'vscode' | 'gc' | 'idle' | 'program' | 'unsampled', number>;
  topSelf: { fn: string; ms: number }[];
  topTotal: { fn: string; ms: number }[];
}

const frameName = (n: CpuProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const file = url.split('/').slice(-2).join('/');
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
};

/** The samples of `profile` in [fromUs, toUs], each sample's time its delta to the next one. */
export function spanReport(profile: CpuProfile, fromUs: number, toUs: number, isHopLens: (url: string) => boolean, top = 12): SpanReport {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byOwner: SpanReport['byOwner'] = { hoplens: 0, vscode: 0, gc: 0, idle: 0, program: 0, unsampled: 0 };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let t = profile.startTime;
  let covered = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const next = i + 1 < profile.timeDeltas.length ? t + profile.timeDeltas[i + 1] : profile.endTime;
    const from = Math.max(t, fromUs);
    const to = Math.min(next, toUs);
    if (to <= from) continue;
    // A gap of over 10 ms between two samples: the thread did not run (or the sampler did not).
    const ms = Math.min(to - from, 10_000) / 1000;
    covered += ms;
    const leaf = byId.get(profile.samples[i])!;
    const name = leaf.callFrame.functionName;
    const stack: CpuProfileNode[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    const owner = name === '(garbage collector)' ? 'gc' : name === '(idle)' ? 'idle' : name === '(program)' ? 'program'
      : stack.some((n) => isHopLens(n.callFrame.url)) ? 'hoplens' : 'vscode';
    byOwner[owner] += ms;
    self.set(frameName(leaf), (self.get(frameName(leaf)) ?? 0) + ms);
    for (const f of new Set(stack.filter((n) => n.callFrame.functionName !== '(root)').map(frameName))) total.set(f, (total.get(f) ?? 0) + ms);
  }
  const spanMs = (toUs - fromUs) / 1000;
  byOwner.unsampled = Math.max(0, spanMs - covered);
  const best = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, ms]) => ({ fn, ms }));
  return { spanMs, byOwner, topSelf: best(self), topTotal: best(total) };
}

export function printSpan(title: string, r: SpanReport): string {
  const f = (ms: number) => `${ms.toFixed(0)} ms`;
  const o = r.byOwner;
  return `    ${title}: ${f(r.spanMs)} = HopLens ${f(o.hoplens)} · VS Code ${f(o.vscode)} · GC ${f(o.gc)} · (program) ${f(o.program)} · idle ${f(o.idle)}`
    + ` · no samples ${f(o.unsampled)}\n      most self time: ${r.topSelf.map((x) => `${x.fn} ${f(x.ms)}`).join('; ')}`
    + `\n      most time with callees: ${r.topTotal.map((x) => `${x.fn} ${f(x.ms)}`).join('; ')}`;
}
