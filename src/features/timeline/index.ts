// The timeline feature: one request across logs, spans and calls in a panel, and its command.
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import { TimelineService } from './timelineService';
import { registerTimelineCommand } from './timelineCommand';
export type { TimelineService } from './timelineService';
import { FLEET_SCHEME } from '../shared/logSessions';
import { featureOf, type FeatureServices, type Registered } from '../shared/contracts';

/** A log's key as a URI: a path on disk, or a fleet document's `hoplens-fleet:` URI (its stream key). */
function logUri(key: string): vscode.Uri {
  return key.startsWith(`${FLEET_SCHEME}:`) ? vscode.Uri.parse(key) : vscode.Uri.file(key);
}

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<TimelineService> {
  const { log, settings } = services;
  const logs = featureOf(services, 'logs');
  const engineTiming = featureOf(services, 'engineTiming');
  const callTraces = featureOf(services, 'callTraces');
  const timelines = new TimelineService({
    extensionUri: context.extensionUri, log, logs: logs.logs,
    spans: () => engineTiming.spans(),
    traceDirs: () => callTraces.traceFolders(),
    includeText: () => settings.current.export.includePromptsAndOutputs,
    open: {
      logLine: async (path, line) => { await vscode.commands.executeCommand(CommandIds.revealLogLine, logUri(path), line); },
      logSource: async (path, line0) => { await vscode.commands.executeCommand(CommandIds.openSource, logUri(path), line0); },
      code: (file, line) => callTraces.openCode(file, line),
    },
  });
  const command = registerTimelineCommand({
    timelines, logs: logs.logs, settings,
    requestsSource: () => logs.requests.currentSource,
    lastTraced: () => services.features.traced?.lastResult?.record,
  });
  services.features.timeline = {
    showRequest: async (req) => (await timelines.show({ query: req.query, logs: [], sources: req.sources, spans: req.spans })) !== undefined,
  };
  return { api: timelines, disposables: [timelines, command] };
}
