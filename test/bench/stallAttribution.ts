// Who blocked the extension host, and for how long: the event-loop blocks a timer probe saw (a
// tick late by more than a few ms), each split by the V8 CPU profile of the same span into
// HopLens (a frame of its bundle on the stack), VS Code (any other JavaScript, and native work
// outside it), garbage collection and the harness itself. A timer tick needs a turn of the event
// loop, so a block is work that never yielded: a task, or tasks of one turn. Pure: the extension-
// host side of bench/editorStalls.mjs records the probe and the profile, this reads them.

/** A node of a V8 CPU profile (inspector Profiler.stop, the same as a .cpuprofile file). */
export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** Microseconds on the monotonic clock process.hrtime reads. */
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Whose code a profile sample was running. */
export type Owner = 'hoplens' | 'vscode' | 'native' | 'gc' | 'harness' | 'idle';

/** A span the probe saw the event loop blocked, in µs on the profile's clock. */
export interface LoopBlock { startUs: number; endUs: number }

export interface AttributedBlock {
  /** From the start of the recording. */
  atMs: number;
  /** How late the probe's tick came (the span less the probe's interval). */
  blockedMs: number;
  /**
   * Whose task it was: HopLens's when its samples outweigh everyone else's JavaScript and native
   * work; 'unscheduled' when samples (idle included) cover less than half of the span: the thread
   * was not running (on a loaded machine the process waits for a core; the profiler's samples stop too).
   */
  owner: 'hoplens' | 'vscode' | 'harness' | 'unscheduled';
  byOwner: Record<Owner, number>;
  /** Of the span, time no sample covers. */
  unsampledMs: number;
  /** The outermost HopLens function on the stack for most of HopLens's samples (its entry point), and the innermost one. */
  hopLensEntry: string | null;
  hopLensHot: string | null;
}

export interface StallReport {
  blocks: AttributedBlock[];
  /** Time by owner over the whole recording (ms). */
  totals: Record<Owner, number>;
}

export interface AttributionOptions {
  isHopLens(url: string): boolean;
  isHarness(url: string): boolean;
  /** The probe's tick interval (ms), taken off each block's span. */
  probeIntervalMs: number;
}

interface NodeInfo { owner: Owner; entry: string | null; hot: string | null }

const frameName = (n: CpuProfileNode): string => {
  const f = n.callFrame;
  const file = f.url.split('/').pop() || f.url;
  return `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
};

/** Each node's owner, and its outermost and innermost HopLens frames, from the root down. */
function classifyNodes(profile: CpuProfile, o: AttributionOptions): Map<number, NodeInfo> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const info = new Map<number, NodeInfo>();
  const visit = (id: number): NodeInfo => {
    const known = info.get(id);
    if (known) return known;
    const n = byId.get(id)!;
    const up = parent.has(id) ? visit(parent.get(id)!) : null;
    const name = n.callFrame.functionName;
    const url = n.callFrame.url;
    let result: NodeInfo;
    if (name === '(garbage collector)') result = { owner: 'gc', entry: null, hot: null };
    else if (name === '(idle)') result = { owner: 'idle', entry: null, hot: null };
    else if (name === '(program)') result = { owner: 'native', entry: null, hot: null };
    else if (o.isHopLens(url)) result = { owner: 'hoplens', entry: up?.entry ?? frameName(n), hot: frameName(n) };
    else if (up && up.owner === 'hoplens') result = up;
    else if (o.isHarness(url)) result = { owner: 'harness', entry: null, hot: null };
    else result = { owner: up && up.owner !== 'vscode' && up.owner !== 'native' ? up.owner : 'vscode', entry: null, hot: null };
    info.set(id, result);
    return result;
  };
  for (const n of profile.nodes) visit(n.id);
  return info;
}

const zero = (): Record<Owner, number> => ({ hoplens: 0, vscode: 0, native: 0, gc: 0, harness: 0, idle: 0 });

const mostOf = (counts: Map<string, number>): string | null => {
  let best: string | null = null;
  let most = 0;
  for (const [k, v] of counts) if (v > most) { best = k; most = v; }
  return best;
};

/**
 * Each sample's time and the span it stands for (µs): up to the next sample, but no more than
 * three sampling intervals. A longer gap means no sample was taken (the thread had no core, so
 * the profiler's signal waited too): it belongs to no one.
 */
function sampleTimes(profile: CpuProfile): { at: Float64Array; dur: Float64Array } {
  const n = profile.samples.length;
  const at = new Float64Array(n);
  const dur = new Float64Array(n);
  let t = profile.startTime;
  for (let i = 0; i < n; i++) { t += profile.timeDeltas[i]; at[i] = t; }
  const interval = [...profile.timeDeltas].sort((a, b) => a - b)[Math.floor(n / 2)] || 1000;
  for (let i = 0; i < n; i++) dur[i] = Math.min(3 * interval, (i + 1 < n ? at[i + 1] : profile.endTime) - at[i]);
  return { at, dur };
}

export function attributeStalls(profile: CpuProfile, blocks: readonly LoopBlock[], o: AttributionOptions): StallReport {
  const info = classifyNodes(profile, o);
  const { at, dur } = sampleTimes(profile);
  const owners = profile.samples.map((id) => info.get(id)!);
  const totals = zero();
  for (let i = 0; i < owners.length; i++) totals[owners[i].owner] += dur[i] / 1000;

  const attributed = blocks.map((b): AttributedBlock => {
    const byOwner = zero();
    const entries = new Map<string, number>();
    const hots = new Map<string, number>();
    for (let i = lowerBound(at, b.startUs); i < at.length && at[i] < b.endUs; i++) {
      const w = owners[i];
      byOwner[w.owner] += dur[i] / 1000;
      if (w.owner === 'hoplens') {
        entries.set(w.entry!, (entries.get(w.entry!) ?? 0) + dur[i]);
        hots.set(w.hot!, (hots.get(w.hot!) ?? 0) + dur[i]);
      }
    }
    const spanMs = (b.endUs - b.startUs) / 1000;
    const sampled = Object.values(byOwner).reduce((a, v) => a + v, 0);
    const others = byOwner.vscode + byOwner.native + byOwner.harness;
    const owner = sampled < spanMs / 2 ? 'unscheduled'
      : byOwner.hoplens > 0 && byOwner.hoplens >= others ? 'hoplens' : byOwner.harness > byOwner.vscode + byOwner.native ? 'harness' : 'vscode';
    return {
      atMs: (b.startUs - profile.startTime) / 1000, blockedMs: spanMs - o.probeIntervalMs,
      owner, byOwner, unsampledMs: Math.max(0, spanMs - sampled), hopLensEntry: mostOf(entries), hopLensHot: mostOf(hots),
    };
  });
  return { blocks: attributed, totals };
}

function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
  return lo;
}
