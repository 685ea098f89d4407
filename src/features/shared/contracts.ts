// What one feature may know of another: the services every feature gets, and the small APIs the
// features offer each other, as interfaces. A feature imports another only through this module
// (and logSessions.ts); test/unit/architecture.test.ts holds the rule. extension.ts composes the
// features in order (logs, traces, send, callTraces, timeline) and fills `features` as each
// registers: a feature may use, while registering, the APIs of those before it; traces uses
// send's (the request traced last) only when a command runs, which breaks their cycle.
import type * as vscode from 'vscode';
import type { HopLensSettings } from '../../config';
import type { Logger } from '../../logging';
import type { TracedRequest } from '../../core/request/index';
import type { SpanStore } from '../../core/otlp/engineTiming';
import type { OtlpSpan } from '../../core/otlp/types';
import type { LogSource } from '../../core/logs/logSource';
import type { LogDocuments, RequestLogSource } from './logSessions';

/** A client's own measurement of a request, beside the engine's breakdown. */
export interface ClientTimes { ttftContentMs: number | null; e2eMs: number | null }

/** The logs feature to the others: the open logs' sessions and the Requests view. */
export interface LogsShared {
  readonly logs: LogDocuments;
  readonly requests: {
    readonly currentSource: RequestLogSource | undefined;
    setSource(source: RequestLogSource | undefined): void;
    reveal(rid: string): Promise<boolean>;
    /** Joins the engine's own timing of a request to its row (by the same normalised id). */
    setEngineTimingLookup(lookup: (rid: string) => { label: string; description: string; tooltip: string } | null): void;
    /** For a log of one request's lines (a fleet document), that request and its lines (1-based) the view lists beside the hops. */
    setPlainLinesLookup?(lookup: (uri: vscode.Uri) => { request: string; lines: ReadonlyArray<{ line: number; text: string }> } | undefined): void;
    refreshSoon(): void;
  };
  /**
   * The release that ran a process, from an open log that holds lines of that pid and states its
   * release, and the folder of that release's own source (in use, or fetched before); null when unknown.
   */
  releaseOfProcess?(pid: number): { label: string; root: string } | null;
}

/** The traces feature (OpenTelemetry engine timing) to the others. */
export interface EngineTimingShared {
  readonly running: boolean;
  readonly onDidChange: vscode.Event<void>;
  /** The engine's breakdown as an HTML fragment (null: no span for the request yet). */
  breakdownHtml(rid: string, client: ClientTimes | null): string | null;
  /** The spans received so far, or null when there are none. */
  spans(): SpanStore | null;
}

/** The send feature to the others: the request traced last. */
export interface TracedShared {
  readonly lastResult: TracedRequest | undefined;
}

/** The call-traces feature to the others. */
export interface CallTracesShared {
  /** Call-trace folders open in the Call Traces view. */
  traceFolders(): readonly string[];
  /** Opens a traced file's line in the engine's checkout (the trace's path mapped to this machine). */
  openCode(file: string, line: number): Promise<void>;
}

/** The timeline feature to the others: a request's timeline from logs that are not files (a fleet result's pods) and spans. */
export interface TimelineShared {
  /** Shows the timeline; resolves false when no source has the request (said to the user). */
  showRequest(req: { query: string; sources: readonly LogSource[]; spans: readonly OtlpSpan[] }): Promise<boolean>;
}

/** What extension.ts fills as the features register (composition order: logs, traces, send, callTraces, timeline, fleet). */
export interface SharedFeatures {
  logs?: LogsShared;
  engineTiming?: EngineTimingShared;
  traced?: TracedShared;
  callTraces?: CallTracesShared;
  timeline?: TimelineShared;
}

/** What every feature's register() receives. */
export interface FeatureServices {
  readonly log: Logger;
  readonly settings: HopLensSettings;
  readonly features: SharedFeatures;
}

/** What a feature's register() returns: its disposables (for context.subscriptions) and its small API. */
export interface Registered<Api> {
  readonly disposables: vscode.Disposable[];
  readonly api: Api;
}

/** Another feature's API, which composition order guarantees by the time a command runs. */
export function featureOf<K extends keyof SharedFeatures>(services: FeatureServices, name: K): NonNullable<SharedFeatures[K]> {
  const api = services.features[name];
  if (api === undefined) throw new Error(`HopLens: the ${name} feature is not registered (src/extension.ts composes the features)`);
  return api as NonNullable<SharedFeatures[K]>;
}
