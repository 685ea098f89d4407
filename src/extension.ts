// Composition root: reads the settings once, builds the services, registers providers and every
// command, and pushes every Disposable into context.subscriptions. No feature logic lives here.
import * as vscode from 'vscode';
import { createLogger } from './logging';
import { HopLensSettings } from './config';
import { createLogFeature } from './features/logs/logFeature';
import { TracedRequestCommands } from './features/send/sendTracedRequestCommand';
import { CallTracesViewProvider } from './features/callTraces/callTracesView';
import { registerCallTraceCommands, openAt } from './features/callTraces/callTraceCommands';
import { EngineTimingService } from './features/traces/engineTimingService';
import { registerEngineTimingCommands } from './features/traces/engineTimingCommands';
import { registerLogCommands } from './features/logs/logCommands';
import { registerLargeLogOptions } from './features/logs/largeLogOptionsCommand';
import { TimelineService } from './features/timeline/timelineService';
import { registerTimelineCommand } from './features/timeline/timelineCommand';
import { CommandIds } from './commandIds';
import { logsApi, callTracesApi, tracedRequestsApi, engineTimingApi, type HopLensLogsApi, type HopLensCallTracesApi, type HopLensTracedRequestsApi,
  type HopLensEngineTimingApi } from './api';

export interface HopLensApi {
  readonly version: string;
  /** Server logs as HopLens reads them (src/api.ts): sessions, checkouts, what the Requests view lists. */
  readonly logs: HopLensLogsApi;
  /** The last traced request (src/api.ts). */
  readonly tracedRequests: HopLensTracedRequestsApi;
  /** The rows of the Call Traces view. */
  readonly callTraces: HopLensCallTracesApi;
  /** The engine timings received over OpenTelemetry, and the receiver's state. */
  readonly engineTiming: HopLensEngineTimingApi;
  /** Request timelines: the panel shown last, with its read-only view model. */
  readonly timelines: Pick<TimelineService, 'current'>;
}

export function activate(context: vscode.ExtensionContext): HopLensApi {
  const log = createLogger();
  const settings = new HopLensSettings();
  const logs = createLogFeature(context, log, settings);
  const engineTiming = new EngineTimingService(context.extensionUri, log, settings);
  const tracedRequests = new TracedRequestCommands({ context, logs, engineTiming, settings, log });
  logs.requests.setEngineTimingLookup((rid) => engineTiming.timingLine(rid));
  const callTraces = new CallTracesViewProvider(context.extensionUri, log, settings);
  const callTraceView = vscode.window.createTreeView('hoplens.callTraces', { treeDataProvider: callTraces, showCollapseAll: true });
  callTraces.attach(callTraceView);
  const timelines = new TimelineService({
    extensionUri: context.extensionUri, log, logs: logs.logs,
    spans: () => (engineTiming.store.stats().spans > 0 ? engineTiming.store : null),
    traceDirs: () => callTraces.traceFolders(),
    includeText: () => settings.current.export.includePromptsAndOutputs,
    open: {
      logLine: async (path, line) => { await vscode.commands.executeCommand(CommandIds.revealLogLine, vscode.Uri.file(path), line); },
      logSource: async (path, line0) => { await vscode.commands.executeCommand(CommandIds.openSource, vscode.Uri.file(path), line0); },
      code: (file, line) => openAt(settings.current, file, line),
    },
  });
  context.subscriptions.push(
    log,
    settings,
    logs.disposable,
    registerLogCommands({ logs: logs.logs, sources: logs.sources, requests: logs.requests, largeLogs: logs.largeLogs, settings, log }),
    registerLargeLogOptions(logs.notice, logs.logs),
    tracedRequests.register(),
    callTraces,
    callTraceView,
    registerCallTraceCommands(callTraces, settings),
    engineTiming,
    engineTiming.onDidChange(() => logs.requests.refreshSoon()),
    registerEngineTimingCommands({ service: engineTiming, logs: logs.logs, traced: tracedRequests, settings }),
    timelines,
    registerTimelineCommand({
      timelines, logs: logs.logs, settings,
      requestsSource: () => logs.requests.currentSource,
      lastTraced: () => tracedRequests.lastResult?.record,
    }),
  );
  log.info(`HopLens ${context.extension.packageJSON.version} activated`);
  return {
    version: String(context.extension.packageJSON.version), logs: logsApi(logs),
    tracedRequests: tracedRequestsApi(tracedRequests), callTraces: callTracesApi(callTraces), engineTiming: engineTimingApi(engineTiming),
    timelines,
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
