// Commands of the OpenTelemetry feature: start/stop the receiver, open a Collector file, and
// show the engine timing of a request (from an argument, the log line at the cursor, the last
// traced request, or a pick among the requests spans arrived for).
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import type { EngineTimingService } from './engineTimingService';
import type { LogSessions } from '../shared/logSessions';
import type { TracedShared } from '../shared/contracts';
import { readCollectorFile } from '../../core/otlp/collectorFile';
import { queryRequestSpans, type TraceLookupOptions } from '../../core/fleet/traceLookup';
import { queryUrlCredentials, queryUrlEndpoint, tempoTenantOf } from '../../core/fleet/credentials';
import { requestToShow } from '../../core/request/choice';
import type { HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';

export interface EngineTimingCommandDeps {
  service: EngineTimingService;
  logs: Pick<LogSessions, 'get'>;
  traced: TracedShared;
  settings: Pick<HopLensSettings, 'current'>;
  /** Where HopLens: Set Fleet Store Credentials… keeps a store's token or user and password (the lookup reads them). */
  secrets?: Pick<vscode.SecretStorage, 'get'>;
}

/**
 * What hoplens.traces.queryUrl is asked with: the token or user and password kept for its address
 * (the same secrets as Find Request in the Fleet…'s), and a Tempo's tenant — its store entry's own
 * in hoplens.fleet.traces, else hoplens.fleet.tenant.
 */
async function lookupCredentials(
  queryUrl: string, settings: Pick<HopLensSettings, 'current'>, secrets: Pick<vscode.SecretStorage, 'get'> | undefined,
): Promise<TraceLookupOptions['credentials']> {
  const stored = secrets ? await queryUrlCredentials((k) => secrets.get(k), queryUrl) : undefined;
  const fleet = (settings.current as Partial<HopLensSettings['current']>).fleet;
  const at = queryUrlEndpoint(queryUrl, 'tempo');
  const orgId = at && fleet ? tempoTenantOf(at, fleet.storeTenants ?? [], fleet.tenant) : undefined;
  return stored || orgId ? { ...stored, ...(orgId ? { orgId } : {}) } : undefined;
}

/** The lookup's failure as the user reads it: a refusal says where the credentials and the tenant are set. */
function lookupFailure(e: unknown): string {
  const message = (e as Error).message;
  if ((e as { kind?: unknown }).kind !== 'auth') return message;
  return `${message} (HopLens: Set Fleet Store Credentials… keeps the token or user and password for hoplens.traces.queryUrl; `
    + 'a Tempo\'s tenant, X-Scope-OrgID, is hoplens.fleet.tenant)';
}

export function registerEngineTimingCommands({ service, logs, traced, settings, secrets }: EngineTimingCommandDeps): vscode.Disposable {
  const pickRid = async (): Promise<string | undefined> => {
    const editor = vscode.window.activeTextEditor;
    const atCursor = editor ? logs.get(editor.document)?.session.record(editor.selection.active.line)?.rid : undefined;
    const want = requestToShow(atCursor, traced.lastResult?.record.logRequestId, service.store.requests().map((t) => t.rid));
    if (!want || 'rid' in want) return want?.rid;
    const items = want.choices.map((c) => ({ label: forWorkbench(c.rid), description: c.lastTraced ? 'last traced request' : undefined, rid: c.rid }));
    return (await vscode.window.showQuickPick(items, { title: 'Engine timing of which request?' }))?.rid;
  };

  return vscode.Disposable.from(
    vscode.commands.registerCommand(CommandIds.startTraceReceiver, () => service.start()),
    vscode.commands.registerCommand(CommandIds.stopTraceReceiver, () => service.stop()),
    vscode.commands.registerCommand(CommandIds.openOtlpFile, async (arg?: vscode.Uri) => {
      const uri = arg ?? (await vscode.window.showOpenDialog({
        title: 'OpenTelemetry traces (OTLP JSON, e.g. from the Collector file exporter)', filters: { JSON: ['json', 'jsonl'], All: ['*'] },
      }))?.[0];
      if (!uri) return 0;
      try {
        const progressOptions = { location: vscode.ProgressLocation.Notification, title: `HopLens: reading ${forWorkbench(uri.fsPath)}`, cancellable: true };
        const res = await vscode.window.withProgress(progressOptions, (_p, token) => {
          const ac = new AbortController();
          token.onCancellationRequested(() => ac.abort());
          return readCollectorFile(uri.fsPath, { onSpans: (spans) => service.store.add(spans), signal: ac.signal });
        });
        const firstBad = res.badLines[0];
        const bad = res.badLineCount || res.rejectedSpanCount
          ? `; skipped ${res.badLineCount} line(s) that were not OTLP JSON and ${res.rejectedSpanCount} bad span(s)`
            + (firstBad ? ` (line ${firstBad.line}: ${forWorkbench(firstBad.message, 160)})` : '')
          : '';
        void vscode.window.showInformationMessage(`HopLens: read ${res.spanCount} span(s) from ${forWorkbench(uri.fsPath)}${bad}.`);
        return res.spanCount;
      } catch (e) {
        void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message)}`);
        return 0;
      }
    }),
    vscode.commands.registerCommand(CommandIds.showEngineTiming, async (ridArg?: string) => {
      const rid = ridArg ?? await pickRid();
      if (!rid) {
        void vscode.window.showInformationMessage('HopLens: no request to show: '
          + 'start the trace receiver and send a request, or put the cursor on a request line.');
        return undefined;
      }
      // A team that already runs a Collector with Jaeger or Tempo: fetch this request's spans from there.
      const { queryUrl, queryService } = settings.current.traces;
      let lookup: string | undefined;
      if (!service.timing(rid) && queryUrl) {
        try {
          const title = `HopLens: looking up ${forWorkbench(rid)} at ${forWorkbench(queryUrl)}`;
          const credentials = await lookupCredentials(queryUrl, settings, secrets);
          const found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title },
            () => queryRequestSpans({ baseUrl: queryUrl, requestId: rid, service: queryService, credentials }));
          service.store.add(found.spans);
          lookup = [found.query, ...(found.notes ?? [])].join(' ');
          if (found.notes?.length) void vscode.window.showWarningMessage(`HopLens: ${forWorkbench(found.notes.join(' '), 1000)}`);
        } catch (e) {
          lookup = `lookup failed: ${lookupFailure(e)}`;
          void vscode.window.showWarningMessage(`HopLens: ${forWorkbench(lookupFailure(e), 1000)}`);
        }
      }
      const last = traced.lastResult;
      const client = last && last.record.logRequestId === rid ? { ttftContentMs: last.metrics.ttftContentMs, e2eMs: last.metrics.e2eMs } : null;
      return service.showPanel(rid, client, lookup);
    }),
  );
}
