// Commands of the OpenTelemetry feature: start/stop the receiver, open a Collector file, and
// show the engine timing of a request (from an argument, the log line at the cursor, the last
// traced request, or a pick among the requests spans arrived for).
import * as vscode from 'vscode';
import { readFile } from 'node:fs/promises';
import { CommandIds } from '../commandIds';
import type { EngineTimingService } from '../providers/otlp/engineTimingService';
import type { LogDocumentService } from '../providers/logs/logDocuments';
import type { TracedRequestCommands } from './sendTracedRequestCommand';
import { decodeOtlpJson } from '../core/otlp/decode';

export interface EngineTimingCommandDeps {
  service: EngineTimingService;
  logs: LogDocumentService;
  traced: TracedRequestCommands;
}

export function registerEngineTimingCommands({ service, logs, traced }: EngineTimingCommandDeps): vscode.Disposable {
  const pickRid = async (): Promise<string | undefined> => {
    const editor = vscode.window.activeTextEditor;
    const atCursor = editor ? logs.get(editor.document)?.record(editor.selection.active.line)?.rid : undefined;
    if (atCursor) return atCursor;
    const last = traced.lastResult?.record.logRequestId;
    const known = service.store.snapshot().requests.map((t) => t.rid);
    if (known.length === 0) return last;
    const items = [...new Set([...(last ? [last] : []), ...known])].map((rid) => ({ label: rid, description: rid === last ? 'last traced request' : undefined }));
    return (await vscode.window.showQuickPick(items, { title: 'Engine timing of which request?' }))?.label;
  };

  return vscode.Disposable.from(
    vscode.commands.registerCommand(CommandIds.startTraceReceiver, () => service.start()),
    vscode.commands.registerCommand(CommandIds.stopTraceReceiver, () => service.stop()),
    vscode.commands.registerCommand(CommandIds.openOtlpFile, async (arg?: vscode.Uri) => {
      const uri = arg ?? (await vscode.window.showOpenDialog({ title: 'OpenTelemetry traces (OTLP JSON, e.g. from the Collector file exporter)', filters: { JSON: ['json', 'jsonl'], All: ['*'] } }))?.[0];
      if (!uri) return 0;
      try {
        const text = await readFile(uri.fsPath, 'utf8');
        let spans = 0;
        let bad = 0;
        // The Collector's file exporter writes one TracesData object per line.
        const chunks = text.trimStart().startsWith('{') && text.includes('\n{') ? text.split('\n').filter((l) => l.trim()) : [text];
        for (const chunk of chunks) {
          try { const s = decodeOtlpJson(chunk); service.store.add(s); spans += s.length; } catch { bad++; }
        }
        void vscode.window.showInformationMessage(`HopLens: read ${spans} span(s) from ${uri.fsPath}${bad ? `; ${bad} line(s) were not OTLP JSON` : ''}.`);
        return spans;
      } catch (e) {
        void vscode.window.showErrorMessage(`HopLens: ${(e as Error).message}`);
        return 0;
      }
    }),
    vscode.commands.registerCommand(CommandIds.showEngineTiming, async (ridArg?: string) => {
      const rid = ridArg ?? await pickRid();
      if (!rid) { void vscode.window.showInformationMessage('HopLens: no request to show: start the trace receiver and send a request, or put the cursor on a request line.'); return undefined; }
      const last = traced.lastResult;
      const client = last && last.record.logRequestId === rid ? { ttftContentMs: last.metrics.ttftContentMs, e2eMs: last.metrics.e2eMs } : null;
      return service.showPanel(rid, client);
    }),
  );
}
