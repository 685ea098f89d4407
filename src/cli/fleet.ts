// The command line's side of the fleet: `--traces URL` / `--logs URL` naming stores
// (`jaeger+http://h:16686`, `tempo+…`, `victorialogs+…`, `loki+…`, https too), `--since`/`--until`
// (RFC 3339 or relative, default the last 24 h) and `--selector`; credentials from environment
// variables only (never argv, which other users of the machine can read):
//   HOPLENS_<KIND>_TOKEN (bearer), or HOPLENS_<KIND>_USER + HOPLENS_<KIND>_PASSWORD (basic),
//   HOPLENS_LOKI_ORG_ID / HOPLENS_TEMPO_ORG_ID (X-Scope-OrgID, the tenant of a multi-tenant store;
//   `A|B` asks Loki for several), HOPLENS_VICTORIALOGS_TENANT (ACCOUNT[:PROJECT]: VictoriaLogs'
//   AccountID and ProjectID headers); KIND is JAEGER, TEMPO, VICTORIALOGS or LOKI. A tenant is no
//   secret: `--tenant T` right after a store's URL gives that store its own, over the variable's
//   (two Lokis of two tenants: `--logs loki+http://a:3100 --tenant team-a --logs loki+http://b:3100 --tenant team-b`).
// Each stream a log store answers becomes a log named after its pod (so each pod is a lane with
// its own clock offset); each store that cannot answer is a plain reason.
import { findRequestInFleet, foundAnything, type FleetResult } from '../core/fleet/find';
import type { FleetCredentials } from '../core/fleet/http';
import { FleetError, parseVictoriaLogsTenant } from '../core/fleet/http';
import { MAX_LINE_LIMIT, parseStoreUrl, type ClientOptions, type RemoteLogStream, type StoreEndpoint } from '../core/fleet/model';
import { remoteStreamSource } from '../core/fleet/source';
import { parseWindow } from '../core/fleet/window';
import type { LogSource } from '../core/logs/logSource';

export const FLEET_HELP = `  --traces URL      a trace store: jaeger+http://HOST:16686 or tempo+http://HOST:3200 (https too);
                    the request's spans by its id (every service Jaeger lists) or --trace-id
  --logs URL        a log store: victorialogs+http://HOST:9428 or loki+http://HOST:3100; the
                    request's lines, filtered in the store, one log per pod (a file path also works)
  --since T         from T (RFC 3339, or back from now: 30m, 2h, 7d; default 24h)
  --until T         to T (default now)
  --selector SEL    the stores' stream selector, e.g. '{namespace="serving"}' (Loki needs one)
  --trace-id ID     also the trace with this W3C trace id (a traced request's traceparent)
  --limit N         at most N lines per log store (default 20000)
  --tenant T        the tenant of the store named just before it: X-Scope-OrgID for Loki (a|b for
                    several) and Tempo, ACCOUNT[:PROJECT] for VictoriaLogs, e.g.
                    --logs loki+http://A:3100 --tenant team-a --logs loki+http://B:3100 --tenant team-b
  credentials come from the environment only: HOPLENS_<KIND>_TOKEN, or HOPLENS_<KIND>_USER and
  HOPLENS_<KIND>_PASSWORD (KIND: JAEGER, TEMPO, VICTORIALOGS, LOKI); a store without --tenant takes
  HOPLENS_LOKI_ORG_ID / HOPLENS_TEMPO_ORG_ID (X-Scope-OrgID) or HOPLENS_VICTORIALOGS_TENANT
`;

export interface FleetArgs {
  traces: StoreEndpoint[];
  logs: StoreEndpoint[];
  since?: string;
  until?: string;
  selector?: string;
  traceId?: string;
  limit?: number;
  /** Each store's own tenant (--tenant after its URL), by the store as given (two stores of one address may have two). */
  tenants: Map<StoreEndpoint, string>;
  /** What the last --logs / --traces named: a store (--tenant is for it) or a file (none). */
  last?: StoreEndpoint | 'file';
}

export function emptyFleetArgs(): FleetArgs {
  return { traces: [], logs: [], tenants: new Map() };
}

/** `--tenant T` for the store named just before it: a tenant that store takes, written as it takes it. */
function takeTenant(f: FleetArgs, tenant: string): void {
  const example = 'e.g. --logs loki+http://HOST:3100 --tenant team-a';
  const e = f.last;
  if (e === undefined) throw new FleetError('bad-url', `--tenant goes right after the store it is for (${example})`);
  if (e === 'file') throw new FleetError('bad-url', `--tenant is a store's tenant, and the --logs before it is a file (${example})`);
  const store = `${e.kind}+${e.baseUrl}`;
  if (e.kind === 'jaeger') throw new FleetError('bad-url', `--tenant ${tenant}: ${store} is a Jaeger store, which takes no tenant`);
  if (f.tenants.has(e)) throw new FleetError('bad-url', `--tenant is given twice for ${store}`);
  if (e.kind === 'victorialogs') parseVictoriaLogsTenant(tenant, `--tenant for ${store}`);
  else if (!tenant.trim()) throw new FleetError('bad-url', `--tenant for ${store} is empty`);
  f.tenants.set(e, tenant.trim());
}

/** True when `value` names a store rather than a file. */
export function isStoreUrl(value: string): boolean {
  return /^[a-z]+\+https?:\/\//i.test(value.trim());
}

/**
 * Takes one fleet option (name, its value) into `f`; false when `name` is not one. A `--logs`
 * value that is not a store URL is returned in `file` for the caller's list of log files.
 */
export function takeFleetOption(f: FleetArgs, name: string, value: () => string): { taken: boolean; file?: string } {
  switch (name) {
    case '--traces': {
      const e = parseStoreUrl(value());
      if (e.kind !== 'jaeger' && e.kind !== 'tempo') throw new FleetError('bad-url', `--traces takes jaeger+… or tempo+… (got ${e.kind}+…)`);
      f.traces.push(e); f.last = e; return { taken: true };
    }
    case '--logs': {
      const v = value();
      if (!isStoreUrl(v)) { f.last = 'file'; return { taken: true, file: v }; }
      const e = parseStoreUrl(v);
      if (e.kind !== 'victorialogs' && e.kind !== 'loki') throw new FleetError('bad-url', `--logs takes victorialogs+… or loki+… (got ${e.kind}+…)`);
      f.logs.push(e); f.last = e; return { taken: true };
    }
    case '--tenant': takeTenant(f, value()); return { taken: true };
    case '--since': f.since = value(); return { taken: true };
    case '--until': f.until = value(); return { taken: true };
    case '--selector': f.selector = value(); return { taken: true };
    case '--trace-id': f.traceId = value(); return { taken: true };
    case '--limit': {
      const v = value();
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > MAX_LINE_LIMIT) {
        throw new FleetError('bad-url', `--limit must be a whole number from 1 to ${MAX_LINE_LIMIT}, got '${v}'`);
      }
      f.limit = Number(v); return { taken: true };
    }
    default: return { taken: false };
  }
}

export function hasStores(f: FleetArgs): boolean {
  return f.traces.length > 0 || f.logs.length > 0;
}

export function credentialsFromEnv(kind: StoreEndpoint['kind'], env: NodeJS.ProcessEnv): FleetCredentials | undefined {
  const K = kind.toUpperCase();
  const c: FleetCredentials = {};
  if (env[`HOPLENS_${K}_TOKEN`]) c.bearerToken = env[`HOPLENS_${K}_TOKEN`];
  if (env[`HOPLENS_${K}_USER`]) { c.username = env[`HOPLENS_${K}_USER`]; c.password = env[`HOPLENS_${K}_PASSWORD`] ?? ''; }
  if ((kind === 'loki' || kind === 'tempo') && env[`HOPLENS_${K}_ORG_ID`]) c.orgId = env[`HOPLENS_${K}_ORG_ID`];
  if (kind === 'victorialogs' && env.HOPLENS_VICTORIALOGS_TENANT) {
    Object.assign(c, parseVictoriaLogsTenant(env.HOPLENS_VICTORIALOGS_TENANT, 'HOPLENS_VICTORIALOGS_TENANT'));
  }
  return Object.keys(c).length ? c : undefined;
}

export interface FleetLogs {
  result: FleetResult;
  /** One name per remote stream, as the timeline's log list takes it (no '/': the lane title is its last part). */
  names: string[];
  sources: Map<string, LogSource>;
  /** The streams by name, for annotate. */
  streams: Map<string, { endpoint: StoreEndpoint; stream: RemoteLogStream }>;
  window: { startMs: number; endMs: number };
}

function laneName(stream: RemoteLogStream, taken: Set<string>): string {
  const { pod, container, namespace } = stream.labels;
  const base = (pod ? (container ? `${pod}:${container}` : pod) : stream.name).replace(/[\\/]/g, '_');
  let name = base;
  if (taken.has(name) && namespace) name = `${base}@${namespace.replace(/[\\/]/g, '_')}`;
  for (let i = 2; taken.has(name); i++) name = `${base}#${i}`;
  taken.add(name);
  return name;
}

/** Asks every store given for the request; never throws for a store's failure (see result.problems). */
export async function queryFleet(f: FleetArgs, requestId: string, env: NodeJS.ProcessEnv, nowMs = Date.now(), signal?: AbortSignal): Promise<FleetLogs> {
  const window = parseWindow(f.since, f.until, nowMs);
  // A tenant written wrong is the user's to fix (exit 2), not a store's problem.
  if (env.HOPLENS_VICTORIALOGS_TENANT) parseVictoriaLogsTenant(env.HOPLENS_VICTORIALOGS_TENANT, 'HOPLENS_VICTORIALOGS_TENANT');
  const clientOptions = (e: StoreEndpoint): ClientOptions => ({
    credentials: withTenant(e, credentialsFromEnv(e.kind, env), f.tenants.get(e)), timeoutMs: timeoutFromEnv(env),
  });
  const result = await findRequestInFleet({
    requestId, traceId: f.traceId, traces: f.traces, logs: f.logs, window, selector: f.selector, lineLimit: f.limit, signal, clientOptions,
  });
  const names: string[] = [];
  const sources = new Map<string, LogSource>();
  const streams = new Map<string, { endpoint: StoreEndpoint; stream: RemoteLogStream }>();
  const taken = new Set<string>();
  for (const store of result.logs) {
    for (const s of store.streams) {
      const name = laneName(s, taken);
      names.push(name);
      sources.set(name, remoteStreamSource(store.endpoint, s, window.endMs));
      streams.set(name, { endpoint: store.endpoint, stream: s });
    }
  }
  return { result, names, sources, streams, window };
}

/** The store's own --tenant over the environment's (VictoriaLogs: both AccountID and ProjectID are the flag's). */
function withTenant(e: StoreEndpoint, c: FleetCredentials | undefined, tenant: string | undefined): FleetCredentials | undefined {
  if (tenant === undefined) return c;
  const { orgId: _o, accountId: _a, projectId: _p, ...rest } = c ?? {};
  if (e.kind === 'victorialogs') return { ...rest, ...parseVictoriaLogsTenant(tenant, `--tenant for ${e.kind}+${e.baseUrl}`) };
  return { ...rest, orgId: tenant };
}

function timeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const v = Number(env.HOPLENS_FLEET_TIMEOUT_MS);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 600_000) : undefined;
}

/**
 * What the CLI says on stderr beside the result: each store's problem (a warning when something
 * else had the request), with the environment variables to set for refused credentials, then how
 * far the search went where it stopped short (lines cut by --limit, Jaeger services not asked).
 */
export function fleetMessages(result: FleetResult, found: boolean): string[] {
  const out: string[] = [];
  for (const p of result.problems) {
    const K = p.endpoint.kind.toUpperCase();
    const tenant = p.endpoint.kind === 'loki' || p.endpoint.kind === 'tempo' ? ` (tenant: --tenant T after its URL, or HOPLENS_${K}_ORG_ID)` : '';
    const hint = p.kind === 'auth' ? `; set HOPLENS_${K}_TOKEN, or HOPLENS_${K}_USER and HOPLENS_${K}_PASSWORD${tenant}` : '';
    out.push(`${found ? 'warning: ' : ''}${p.message}${hint}`);
  }
  for (const n of result.notes) out.push(`warning: ${n}`);
  if (result.truncated) out.push('warning: --limit N asks a log store for more lines (at most 1000000)');
  return out;
}

export { foundAnything };
