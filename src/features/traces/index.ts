// The traces feature: the OpenTelemetry receiver of the engine's spans, the engine timing of a
// request (panel, Requests view rows) and its commands.
import type * as vscode from 'vscode';
import { EngineTimingService } from './engineTimingService';
import { registerEngineTimingCommands } from './engineTimingCommands';
import { featureOf, type FeatureServices, type Registered, type TracedShared } from '../shared/contracts';

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<EngineTimingService> {
  const { log, settings } = services;
  const logs = featureOf(services, 'logs');
  const service = new EngineTimingService(context.extensionUri, log, settings);
  services.features.engineTiming = {
    get running() { return service.running; },
    onDidChange: service.onDidChange,
    breakdownHtml: (rid, client) => service.breakdownHtml(rid, client),
    spans: () => (service.store.stats().spans > 0 ? service.store : null),
  };
  logs.requests.setEngineTimingLookup((rid) => service.timingLine(rid));
  // Registered after this feature: asked for when a command runs.
  const traced: TracedShared = { get lastResult() { return services.features.traced?.lastResult; } };
  return {
    api: service,
    disposables: [
      service,
      service.onDidChange(() => logs.requests.refreshSoon()),
      registerEngineTimingCommands({ service, logs: logs.logs, traced, settings, secrets: context.secrets }),
    ],
  };
}
