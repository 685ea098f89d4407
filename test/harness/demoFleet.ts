// The fleet of `npm run demo:fleet` and its browser E2E: real VictoriaLogs and Jaeger on loopback
// ports, and three pods of the fake engine as their own processes, each with its own wall clock:
// a router (true time) in front of a vLLM prefill instance (−1.3 s) and a vLLM decode instance
// (+0.8 s). Each pod prints its log on stdout; a log shipper per pod (logShipper.ts) posts its
// lines to VictoriaLogs with the pod's stream labels, stamped by the pod's node clock. The vLLM
// instances export their llm_request spans to Jaeger over OTLP/HTTP, named by OTEL_SERVICE_NAME
// and carrying their pod in OTEL_RESOURCE_ATTRIBUTES. The router passes the client's
// X-Request-Id and traceparent on, so one request has lines on all three pods and its spans in
// the client's trace. stop() ends it all; so does this process's exit (Ctrl+C).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fleetBinaries, startJaeger, startVictoriaLogs, type JaegerServer, type VictoriaLogsServer } from './fleetServers';
import { LogShipper, type StreamLabels } from './logShipper';
import { REPO_ROOT } from './tools';

export const FLEET_NAMESPACE = 'serving';

export interface FleetPod {
  labels: StreamLabels;
  /** How far this pod's clock runs ahead of true time (ms; negative: behind). */
  clockSkewMs: number;
  pid: number;
  url: string;
  shipper: LogShipper;
}

export interface DemoFleet {
  victoriaLogs: VictoriaLogsServer;
  jaeger: JaegerServer;
  router: FleetPod;
  prefill: FleetPod;
  decode: FleetPod;
  /** `hoplens.fleet.traces` and `hoplens.fleet.logs` pointing at the two stores. */
  settings: { 'hoplens.fleet.traces': string[]; 'hoplens.fleet.logs': string[]; 'hoplens.fleet.selector': string };
  stop(): Promise<void>;
}

export const POD_CLOCK_SKEW_MS = { router: 0, prefill: -1300, decode: 800 } as const;

const children = new Set<ChildProcess>();
let exitHook = false;

function startPod(role: 'router' | 'prefill' | 'decode', args: string[], env: Record<string, string>,
  victoriaLogsUrl: string, log: (m: string) => void): Promise<FleetPod> {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => { for (const c of children) if (c.exitCode === null && c.signalCode === null) { try { c.kill('SIGKILL'); } catch { /* gone */ } } });
  }
  const clockSkewMs = POD_CLOCK_SKEW_MS[role];
  const labels: StreamLabels = { namespace: FLEET_NAMESPACE, pod: `${role}-0`, container: role === 'router' ? 'router' : 'vllm' };
  const pod = join(REPO_ROOT, 'out', 'src', 'testing', 'fakeEngine', 'pod.js');
  const child = spawn(process.execPath, [pod, '--clock-skew-ms', String(clockSkewMs), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TZ: 'UTC', ...env },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let problems = '';
  child.stderr!.on('data', (d: Buffer) => { problems = (problems + d.toString('utf8')).slice(-4000); });
  const shipper = new LogShipper({ victoriaLogsUrl, labels, clock: () => Date.now() + clockSkewMs, onProblem: log });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${labels.pod} did not start within 15 s: ${seen}${problems}`)); }, 15_000);
    const onData = (d: Buffer) => {
      seen += d.toString('utf8');
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      // What the pod printed so far is shipped too, then everything after it.
      child.stdout!.pause();
      shipper.take(seen);
      shipper.follow(child.stdout!);
      resolve({ labels, clockSkewMs, pid: child.pid!, url: m[1], shipper });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`${labels.pod} exited (${code}) before it listened: ${seen}${problems}`)); });
  });
}

function podEnv(role: string): Record<string, string> {
  return { OTEL_SERVICE_NAME: `vllm-${role}`, OTEL_RESOURCE_ATTRIBUTES: `k8s.namespace.name=${FLEET_NAMESPACE},k8s.pod.name=${role}-0,k8s.container.name=vllm` };
}

/** Starts the stores and the three pods; throws with the reason when the stores cannot be built or started. */
export async function startDemoFleet(opts: { log?: (m: string) => void } = {}): Promise<DemoFleet> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`[demo:fleet] ${m}\n`));
  const bins = fleetBinaries();
  if (typeof bins === 'string') throw new Error(bins);
  const [victoriaLogs, jaeger] = await Promise.all([startVictoriaLogs(bins.victorialogs), startJaeger(bins.jaeger)]);
  const pods: FleetPod[] = [];
  // The pods first (their last lines still go out), then the shippers' last batches, then the stores.
  const stop = async () => {
    for (const c of [...children]) {
      const gone = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(t);
    }
    for (const p of pods) await p.shipper.stop();
    await Promise.all([victoriaLogs.stop(), jaeger.stop()]);
  };
  try {
    const engine = (schedule: string) => ['engine', '--engine', 'vllm', '--port', '0', '--log', '-', '--schedule', schedule, '--otlp', jaeger.otlpUrl];
    const [prefill, decode] = await Promise.all([
      startPod('prefill', engine('first=180,frames=40,every=20'), podEnv('prefill'), victoriaLogs.baseUrl, log),
      startPod('decode', engine('first=40,frames=32,every=25'), podEnv('decode'), victoriaLogs.baseUrl, log),
    ]);
    pods.push(prefill, decode);
    const router = await startPod('router', ['router', '--prefill', prefill.url, '--decode', decode.url, '--port', '0'], {}, victoriaLogs.baseUrl, log);
    pods.push(router);
    return {
      victoriaLogs, jaeger, router, prefill, decode, stop,
      settings: {
        'hoplens.fleet.traces': [`jaeger+${jaeger.baseUrl}`],
        'hoplens.fleet.logs': [`victorialogs+${victoriaLogs.baseUrl}`],
        'hoplens.fleet.selector': `{namespace="${FLEET_NAMESPACE}"}`,
      },
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
