// Real Jaeger (v2) and VictoriaLogs for the fleet tests, started on loopback ports with every
// listener bound to 127.0.0.1, their data in a temp folder, ended and removed by stop().
// The binaries come from scripts/fleet-tools.mjs (built once from the Go module proxy into the
// tool cache). Without Go the tests skip with one line saying why; under CI=true that fails.
// A process that exits without stop() (Ctrl+C in `npm run demo:fleet`) still ends the servers
// and removes their data: an exit hook kills what is running and removes the folders.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './tools';

export interface FleetBinaries { jaeger: string; victorialogs: string }

let cached: FleetBinaries | string | undefined;

/** The built binaries, or the one-line reason they are not there. */
export function fleetBinaries(): FleetBinaries | string {
  if (cached !== undefined) return cached;
  const env = process.env;
  if (env.HOPLENS_FLEET_JAEGER && env.HOPLENS_FLEET_VICTORIALOGS) {
    cached = { jaeger: env.HOPLENS_FLEET_JAEGER, victorialogs: env.HOPLENS_FLEET_VICTORIALOGS };
    return cached;
  }
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'fleet-tools.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const out = Object.fromEntries(r.stdout.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  if (r.status === 0 && out.jaeger && out.victorialogs) cached = { jaeger: out.jaeger, victorialogs: out.victorialogs };
  else cached = (r.stderr.trim().split('\n').pop() ?? `scripts/fleet-tools.mjs exited ${r.status}`).replace(/^\[fleet-tools\] /, '');
  return cached;
}

/** The binaries, or a skip (fails under CI=true: CI must run the fleet tests). */
export function fleetBinariesOrSkip(t: { skip: (why: string) => void }): FleetBinaries | undefined {
  const b = fleetBinaries();
  if (typeof b !== 'string') return b;
  if (process.env.CI === 'true') throw new Error(`fleet tests cannot run under CI: ${b}`);
  t.skip(`fleet tests skipped: ${b}`);
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, ok: (status: number, text: string) => boolean, child: ChildProcess, what: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}) before it answered:\n${log().slice(-2000)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (ok(res.status, await res.text())) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer ${url} within 30 s:\n${log().slice(-2000)}`);
}

export interface RunningServer {
  baseUrl: string;
  /** The server's process id. */
  pid: number;
  stop(): Promise<void>;
}

const running = new Map<ChildProcess, string>();
let exitHookInstalled = false;
function endAllAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [child, dir] of running) {
      if (child.exitCode === null && child.signalCode === null) { try { child.kill('SIGKILL'); } catch { /* gone */ } }
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

function spawnLogged(cmd: string, args: string[], dir: string): { child: ChildProcess; log: () => string } {
  let out = '';
  endAllAtExit();
  const child = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  running.set(child, dir);
  const keep = (b: Buffer): void => { out = (out + b.toString('utf8')).slice(-20_000); };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, log: () => out };
}

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
    running.delete(child);
  };
}

export interface VictoriaLogsServer extends RunningServer {
  /** Ingests lines over VictoriaLogs' JSON-lines API, `namespace,pod,container` as stream fields, then flushes. */
  ingest(rows: Array<{ _msg: string; _time: string; [label: string]: string }>): Promise<void>;
}

export async function startVictoriaLogs(bin: string): Promise<VictoriaLogsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-vl-'));
  const port = await freePort();
  const { child, log } = spawnLogged(bin, [`-httpListenAddr=127.0.0.1:${port}`, `-storageDataPath=${join(dir, 'data')}`, '-loggerLevel=WARN', '-retentionPeriod=100y'], dir);
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = stopper(child, dir);
  try {
    await waitFor(`${baseUrl}/health`, (s) => s === 200, child, 'victoria-logs', log);
  } catch (e) { await stop(); throw e; }
  return {
    baseUrl, stop, pid: child.pid!,
    async ingest(rows) {
      const chunk = 20_000;
      for (let i = 0; i < rows.length; i += chunk) {
        const body = rows.slice(i, i + chunk).map((r) => JSON.stringify(r)).join('\n') + '\n';
        const res = await fetch(`${baseUrl}/insert/jsonline?_stream_fields=namespace,pod,container&_time_field=_time&_msg_field=_msg`, {
          method: 'POST', headers: { 'Content-Type': 'application/stream+json' }, body,
        });
        if (res.status !== 200 && res.status !== 204) throw new Error(`ingest: HTTP ${res.status} ${await res.text()}`);
      }
      await fetch(`${baseUrl}/internal/force_flush`);
    },
  };
}

export interface JaegerServer extends RunningServer {
  /** OTLP/HTTP traces endpoint (…/v1/traces). */
  otlpUrl: string;
  /** Sends OTLP JSON (ExportTraceServiceRequest) and waits until Jaeger lists the trace. */
  ingest(otlpJson: unknown, traceIds: string[]): Promise<void>;
}

export async function startJaeger(bin: string): Promise<JaegerServer> {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-jaeger-'));
  const [http, grpc, otlp] = [await freePort(), await freePort(), await freePort()];
  // Jaeger v2 is an OpenTelemetry Collector: every listener is named here, on loopback, and the
  // collector's own telemetry (a metrics listener on :8888 by default) is off.
  writeFileSync(join(dir, 'jaeger.yaml'), [
    'service:',
    '  extensions: [jaeger_storage, jaeger_query]',
    '  pipelines:',
    '    traces:',
    '      receivers: [otlp]',
    '      exporters: [jaeger_storage_exporter]',
    '  telemetry:',
    '    metrics:',
    '      level: none',
    '    logs:',
    '      level: warn',
    'receivers:',
    '  otlp:',
    '    protocols:',
    '      http:',
    `        endpoint: 127.0.0.1:${otlp}`,
    'extensions:',
    '  jaeger_storage:',
    '    backends:',
    '      mem:',
    '        memory:',
    '          max_traces: 100000',
    '  jaeger_query:',
    '    storage:',
    '      traces: mem',
    '    grpc:',
    `      endpoint: 127.0.0.1:${grpc}`,
    '    http:',
    `      endpoint: 127.0.0.1:${http}`,
    'exporters:',
    '  jaeger_storage_exporter:',
    '    trace_storage: mem',
    '',
  ].join('\n'));
  const { child, log } = spawnLogged(bin, ['--config', `file:${join(dir, 'jaeger.yaml')}`], dir);
  const baseUrl = `http://127.0.0.1:${http}`;
  const otlpUrl = `http://127.0.0.1:${otlp}/v1/traces`;
  const stop = stopper(child, dir);
  try {
    await waitFor(`${baseUrl}/api/services`, (s, t) => s === 200 && t.includes('"data"'), child, 'jaeger', log);
  } catch (e) { await stop(); throw e; }
  return {
    baseUrl, otlpUrl, stop, pid: child.pid!,
    async ingest(otlpJson, traceIds) {
      const res = await fetch(otlpUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(otlpJson) });
      if (res.status !== 200) throw new Error(`OTLP export: HTTP ${res.status} ${await res.text()}`);
      for (const id of traceIds) await waitFor(`${baseUrl}/api/v3/traces/${id}`, (s) => s === 200, child, 'jaeger', log);
    },
  };
}

/**
 * One span of `service` as OTLP JSON's resourceSpans entry (what a vLLM or SGLang exporter sends):
 * an `llm_request` server span of `durationMs` from `startMs`, its attributes strings or doubles.
 */
export function otlpSpanOf(service: string, span: {
  traceId: string; spanId: string; startMs: number; durationMs?: number; attrs: Record<string, string | number>; scope?: string;
}): unknown {
  const ns = (ms: number): string => (BigInt(Math.floor(ms)) * 1_000_000n).toString();
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [{
      scope: { name: span.scope ?? 'test' },
      spans: [{
        traceId: span.traceId, spanId: span.spanId, name: 'llm_request', kind: 2,
        startTimeUnixNano: ns(span.startMs), endTimeUnixNano: ns(span.startMs + (span.durationMs ?? 200)),
        attributes: Object.entries(span.attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { doubleValue: v } : { stringValue: v } })),
      }],
    }],
  };
}

/** A VictoriaLogs started for a test file, or undefined (the one-line reason on stderr) where the fleet tools are missing. */
export async function victoriaLogsOrSkip(): Promise<VictoriaLogsServer | undefined> {
  const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
  return bins ? startVictoriaLogs(bins.victorialogs) : undefined;
}
