// HopLens: Show Request Timeline… — which request (an argument, a Requests view row, the line
// at the cursor, the last traced request) and which logs (the open logs the core picks for it,
// or the user's pick and files), then the timeline service shows it. It adapts only: the
// choice of logs is core/timeline/openLogs.ts, the timeline core/timeline/load.ts.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { annotateText } from '../../core/session/logSession';
import { CommandIds } from '../../commandIds';
import type { LogSessions, RequestLogSource } from '../shared/logSessions';
import type { TimelineService } from './timelineService';
import type { RequestTimelinePanel } from './timelinePanel';
import { isSameRequest, logChoiceText, readOpenTransferIds, requestIdOfRecord, timelineLogChoices, type OpenLogView } from '../../core/timeline/openLogs';
import { clientFromTraceRecord } from '../../core/timeline/clientRequest';
import type { TraceRecord } from '../../core/request/types';
import type { HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { LogTransferJoins } from '../../core/logs/transferJoin';
import { requestKey } from '../../core/timeline/requestKey';

export interface TimelineCommandDeps {
  timelines: Pick<TimelineService, 'show'>;
  logs: Pick<LogSessions, 'find' | 'get'>;
  /** The log the Requests view shows (a large log streamed from disk is not an open document). */
  requestsSource(): RequestLogSource | undefined;
  /** The last traced request's record, if any (its socket times join the timeline). */
  lastTraced(): TraceRecord | undefined;
  settings: Pick<HopLensSettings, 'current'>;
}

/** Larger configured logs are read by the timeline itself when picked, not to fill the picker. */
const CONFIGURED_LOG_MAX_BYTES = 16 * 1024 * 1024;

/** A Requests view row, as VS Code hands it to a context-menu command. */
interface RequestRow { kind: 'request'; brief: { rid: string }; source: RequestLogSource }

function isRequestRow(arg: unknown): arg is RequestRow {
  const r = arg as Partial<RequestRow> | undefined;
  return r?.kind === 'request' && typeof r.brief?.rid === 'string';
}

export function registerTimelineCommand(deps: TimelineCommandDeps): vscode.Disposable {
  // The open logs' lines naming a request's transfer id (SGLang's bootstrap_room), read once per log and then as it grows.
  const transferJoins = new LogTransferJoins(requestKey);
  /** Open logs on disk, with what their sessions know (no file is read). */
  const openLogs = (): OpenLogView[] => {
    const out: OpenLogView[] = [];
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== 'file') continue;
      const session = deps.logs.find(doc.uri)?.session;
      if (session) out.push({ path: doc.uri.fsPath, engine: session.engine, tracker: session.tracker, records: session.records });
    }
    const src = deps.requestsSource();
    if (src && src.uri.scheme === 'file') out.push({ path: src.uri.fsPath, engine: src.engine, tracker: src.tracker, records: [] });
    return out;
  };

  /**
   * The configured server log (hoplens.serverLog) is a log of this run even when it is not open:
   * read it once (up to CONFIGURED_LOG_MAX_BYTES) so the picker can say whether it has the request.
   */
  const withConfiguredLog = async (views: OpenLogView[]): Promise<OpenLogView[]> => {
    const path = deps.settings.current.serverLog;
    if (!path || views.some((v) => v.path === path)) return views;
    const size = (await stat(path).catch(() => null))?.size;
    if (size === undefined || size > CONFIGURED_LOG_MAX_BYTES) return views;
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null) return views;
    const session = annotateText(text);
    return [...views, { path, engine: session.engine, tracker: session.tracker, records: session.records }];
  };

  const requestAtCursor = (): string | undefined => {
    const editor = vscode.window.activeTextEditor;
    const session = editor ? deps.logs.get(editor.document)?.session : undefined;
    return requestIdOfRecord(session?.record(editor!.selection.active.line)) ?? undefined;
  };

  const askLogs = async (query: string, views: OpenLogView[]): Promise<string[] | undefined> => {
    const choices = timelineLogChoices(views, query, transferJoins);
    type Item = vscode.QuickPickItem & { path?: string };
    const items: Item[] = choices.map((c) => ({
      label: forWorkbench(c.path.split(/[\\/]/).pop() ?? c.path), description: forWorkbench(logChoiceText(c)), detail: forWorkbench(c.path),
      picked: c.picked, path: c.path,
    }));
    const more: Item = { label: '$(folder-opened) Other log files…', alwaysShow: true };
    const picked = await vscode.window.showQuickPick([...items, more], {
      title: `Logs for the timeline of ${forWorkbench(query)}`, canPickMany: true, matchOnDetail: true,
    });
    if (!picked) return undefined;
    const paths = picked.filter((p) => p.path).map((p) => p.path!);
    if (picked.includes(more)) {
      const files = await vscode.window.showOpenDialog({
        canSelectMany: true, title: 'Server logs of the same run', filters: { Logs: ['log', 'txt', 'out', 'err'], All: ['*'] },
      });
      for (const f of files ?? []) if (!paths.includes(f.fsPath)) paths.push(f.fsPath);
    }
    return paths;
  };

  /**
   * Arguments are for the Requests view's row, the traced-request report and scripted use:
   * (request id or row, log files). With no log files given, the open logs the core picks.
   */
  const show = async (arg?: string | RequestRow, logsArg?: readonly (vscode.Uri | string)[]): Promise<RequestTimelinePanel | undefined> => {
    const fromPalette = arg === undefined;
    let query = typeof arg === 'string' ? arg : isRequestRow(arg) ? arg.brief.rid : undefined;
    if (query === undefined) {
      const suggested = requestAtCursor() ?? deps.lastTraced()?.logRequestId ?? '';
      query = (await vscode.window.showInputBox({
        title: 'HopLens: Request Timeline', value: suggested,
        prompt: 'Any id of the request: the one the client sent, chatcmpl-…, cmpl-…-0, an engine\'s …-<8 hex>, an SGLang rid, a router\'s request_id',
      }))?.trim();
      if (!query) return undefined;
    }
    let paths: string[] | undefined;
    if (logsArg) paths = logsArg.map((l) => (typeof l === 'string' ? l : l.fsPath));
    else {
      const views = await withConfiguredLog(openLogs());
      // Their lines naming a request's bootstrap_room, read in slices before the choice (which is one task).
      await readOpenTransferIds(views, transferJoins);
      if (fromPalette && views.length) paths = await askLogs(query, views);
      else paths = timelineLogChoices(views, query, transferJoins).filter((c) => c.picked).map((c) => c.path);
      if (paths === undefined) return undefined;
    }
    const serverLog = deps.settings.current.serverLog;
    if (paths.length === 0 && serverLog && existsSync(serverLog)) paths = [serverLog];
    if (paths.length === 0) {
      void vscode.window.showInformationMessage(logsArg || openLogs().length === 0
        ? 'HopLens: open the server\'s logs (or set hoplens.serverLog) to see a request\'s timeline.'
        : `HopLens: no open log names request ${forWorkbench(query)}. Run HopLens: Show Request Timeline… from the palette to pick logs or add files.`);
      return undefined;
    }
    const last = deps.lastTraced();
    const client = last && isSameRequest(query, last.requestId) ? clientFromTraceRecord(last) : null;
    return deps.timelines.show({ query, logs: paths, client });
  };

  return vscode.commands.registerCommand(CommandIds.showRequestTimeline, show);
}
