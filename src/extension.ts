// Composition root: reads the settings once, registers each feature (src/features/<name>/index.ts)
// in order, and pushes every Disposable into context.subscriptions. No feature logic lives here.
import type * as vscode from 'vscode';
import { createLogger } from './logging';
import { HopLensSettings } from './config';
import * as logsFeature from './features/logs/index';
import * as tracesFeature from './features/traces/index';
import * as sendFeature from './features/send/index';
import * as callTracesFeature from './features/callTraces/index';
import * as timelineFeature from './features/timeline/index';
import * as fleetFeature from './features/fleet/index';
import * as walkthroughFeature from './features/walkthrough/index';
import type { TimelineService } from './features/timeline/index';
import type { FeatureServices } from './features/shared/contracts';
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
  context.subscriptions.push(log, settings);
  const services: FeatureServices = { log, settings, features: {} };
  // The order matters: a feature may use, while registering, the features before it (features/shared/contracts.ts).
  const logs = logsFeature.register(context, services);
  const engineTiming = tracesFeature.register(context, services);
  const tracedRequests = sendFeature.register(context, services);
  const callTraces = callTracesFeature.register(context, services);
  const timelines = timelineFeature.register(context, services);
  const fleet = fleetFeature.register(context, services);
  const walkthrough = walkthroughFeature.register(context, services);
  for (const feature of [logs, engineTiming, tracedRequests, callTraces, timelines, fleet, walkthrough]) context.subscriptions.push(...feature.disposables);
  log.info(`HopLens ${context.extension.packageJSON.version} activated`);
  return {
    version: String(context.extension.packageJSON.version), logs: logsApi(logs.api),
    tracedRequests: tracedRequestsApi(tracedRequests.api), callTraces: callTracesApi(callTraces.api), engineTiming: engineTimingApi(engineTiming.api),
    timelines: timelines.api,
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
