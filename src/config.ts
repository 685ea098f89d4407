// Typed settings, read in one place, into one snapshot that activate() passes on. VS Code already withholds the settings listed under
// capabilities.untrustedWorkspaces.restrictedConfigurations from workspace scope in an
// untrusted workspace, so values here are safe to act on.
import * as vscode from 'vscode';
import { engineProfiles } from './engines/registry';
import type { Engine } from './engines/types';
import type { Api } from './core/request/types';

export type EngineSetting = 'auto' | Engine;
export type ApiSetting = Api;

export interface HopLensConfig {
  /** Per engine id, `hoplens.checkouts.<id>` ('' = look in the workspace folders). */
  checkouts: Record<Engine, string>;
  server: {
    url: string;
    engine: EngineSetting;
    api: ApiSetting;
    model: string;
    prompt: string;
    maxTokens: number;
    temperature: number;
    extraBody: Record<string, unknown>;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
  };
  serverLog: string;
  traceDirs: string[];
  callTraces: { perfettoMaxBytes: number };
  traces: { receiverHost: string; receiverPort: number; queryUrl: string; queryService: string };
  export: { includePromptsAndOutputs: boolean };
  /**
   * The stores Find Request in the Fleet… asks, as the user wrote them (`kind+http://host:port`); parsed where used.
   * `storeTenants`: the tenants given per store entry (`{ "url": …, "tenant": … }`), over `tenant` / `victoriaLogsTenant`.
   */
  fleet: {
    traces: string[]; logs: string[]; selector: string; window: string; tenant?: string; victoriaLogsTenant?: string; lineLimit?: number;
    storeTenants?: StoreTenant[];
  };
}

/** A fleet store entry's own tenant: its URL as written and the tenant (X-Scope-OrgID, or VictoriaLogs' ACCOUNT[:PROJECT]). */
export interface StoreTenant { url: string; tenant: string }

/** A fleet store entry as written: a URL, or `{ "url": …, "tenant": … }` (a tenant for that store alone). */
function entryOf(e: unknown): { url: string; tenant?: string } | undefined {
  if (typeof e === 'string') return e.trim() ? { url: e } : undefined;
  if (!e || typeof e !== 'object') return undefined;
  const { url, tenant } = e as { url?: unknown; tenant?: unknown };
  if (typeof url !== 'string' || !url.trim()) return undefined;
  return typeof tenant === 'string' && tenant.trim() ? { url, tenant: tenant.trim() } : { url };
}

function storeUrls(list: readonly unknown[]): string[] {
  return (Array.isArray(list) ? list : []).map(entryOf).filter((e) => e !== undefined).map((e) => e.url);
}

function storeTenants(list: readonly unknown[]): StoreTenant[] {
  return (Array.isArray(list) ? list : []).map(entryOf).flatMap((e) => (e?.tenant ? [{ url: e.url, tenant: e.tenant }] : []));
}

function readConfig(): HopLensConfig {
  const c = vscode.workspace.getConfiguration('hoplens');
  return {
    // Every registered engine's (the built-in two always are).
    checkouts: Object.fromEntries(engineProfiles().map((p) => [p.id, c.get<string>(`checkouts.${p.id}`, '')])) as Record<Engine, string>,
    server: {
      url: c.get('server.url', 'http://127.0.0.1:8000'),
      engine: c.get<EngineSetting>('server.engine', 'auto'),
      api: c.get<ApiSetting>('server.api', 'chat'),
      model: c.get('server.model', ''),
      prompt: c.get('server.prompt', 'Count to twenty, one number per line.'),
      maxTokens: c.get('server.maxTokens', 32),
      temperature: c.get('server.temperature', 0),
      // A plain copy: VS Code hands out read-only proxies for object settings.
      extraBody: JSON.parse(JSON.stringify(c.get<Record<string, unknown>>('server.extraBody', {}))) as Record<string, unknown>,
      requestTimeoutMs: c.get('server.requestTimeoutSeconds', 120) * 1000,
      idleTimeoutMs: c.get('server.idleTimeoutSeconds', 30) * 1000,
    },
    serverLog: c.get('serverLog', ''),
    traceDirs: c.get<string[]>('traceDirs', []),
    traces: {
      receiverHost: c.get('traces.receiverHost', '127.0.0.1'),
      receiverPort: c.get('traces.receiverPort', 4318),
      queryUrl: c.get('traces.queryUrl', ''),
      queryService: c.get('traces.queryService', ''),
    },
    callTraces: { perfettoMaxBytes: Math.max(1, c.get('callTraces.perfettoMaxMegabytes', 100)) * 1024 * 1024 },
    export: { includePromptsAndOutputs: c.get('export.includePromptsAndOutputs', false) },
    fleet: {
      traces: storeUrls(c.get<unknown[]>('fleet.traces', [])),
      logs: storeUrls(c.get<unknown[]>('fleet.logs', [])),
      storeTenants: [...storeTenants(c.get<unknown[]>('fleet.traces', [])), ...storeTenants(c.get<unknown[]>('fleet.logs', []))],
      selector: c.get('fleet.selector', ''),
      window: c.get('fleet.window', '24h') || '24h',
      tenant: c.get('fleet.tenant', '').trim(),
      victoriaLogsTenant: c.get('fleet.victoriaLogsTenant', '').trim(),
      lineLimit: c.get('fleet.lineLimit', 20_000),
    },
  };
}

/**
 * The settings as one snapshot, read when HopLens starts and again when a hoplens.* setting
 * changes; services and commands get this object and read `current` when they act.
 */
export class HopLensSettings implements vscode.Disposable {
  private snapshot = readConfig();
  private readonly changed = new vscode.EventEmitter<HopLensConfig>();
  /** Fires with the new snapshot after a hoplens.* setting changed. */
  readonly onDidChange = this.changed.event;
  private readonly listener = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('hoplens')) return;
    this.snapshot = readConfig();
    this.changed.fire(this.snapshot);
  });

  get current(): HopLensConfig { return this.snapshot; }

  dispose(): void { this.listener.dispose(); this.changed.dispose(); }
}
