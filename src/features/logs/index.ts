// The server-log feature: sessions of open logs, lenses, links, hovers, decorations, the
// Requests view, the streamed view of large logs, and their commands.
import * as vscode from 'vscode';
import { createLogFeature, type LogFeature } from './logFeature';
import { registerLogCommands } from './logCommands';
import { registerLargeLogOptions } from './largeLogOptionsCommand';
import type { FeatureServices, Registered } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<LogFeature> {
  const { log, settings } = services;
  const feature = createLogFeature(context, log, settings);
  services.features.logs = {
    logs: feature.logs, requests: feature.requests,
    releaseOfProcess: (pid) => feature.sources.releaseOfProcess(pid, vscode.workspace.textDocuments.map((d) => d.uri), feature.logs),
  };
  return {
    api: feature,
    disposables: [
      feature.disposable,
      registerLogCommands({ logs: feature.logs, sources: feature.sources, requests: feature.requests, largeLogs: feature.largeLogs, settings, log }),
      registerLargeLogOptions(feature.notice, feature.logs),
    ],
  };
}
