// What the features share about server logs (the narrow module features may import from each
// other, src/features/shared): an open log's annotation, the open logs' sessions, and the log a
// view of requests reads. The logs feature implements these; send, traces and timeline read them.
import type * as vscode from 'vscode';
import type { LogSession } from '../../core/session/logSession';
import type { LogReadModel } from '../../core/logs/logSource';

/** The scheme of the read-only documents Find Request in the Fleet… opens, one per pod (the logs feature annotates them). */
export const FLEET_SCHEME = 'hoplens-fleet';

/** An open log: its session, and what VS Code decided about the document when it created it. */
export interface LogDocumentAnnotation {
  readonly uri: vscode.Uri;
  readonly session: LogSession;
  /** Length of the text when VS Code handed the document over. */
  readonly chars: number;
  /**
   * VS Code shows no CodeLens on this document: it was over 20 MiB or 300,000 lines with
   * `editor.largeFileOptimizations` on when VS Code created it (fixed for the document's life).
   */
  readonly noCodeLens: boolean;
}

/** What providers need of the open logs. */
export interface LogSessions {
  /**
   * The annotation so far (parsing continues in the background), or undefined for non-logs.
   * Sessions follow their documents' open and change events; this reads, and parses only a log
   * it has never seen.
   */
  get(doc: vscode.TextDocument): LogDocumentAnnotation | undefined;
  /** The annotation of an open document, if it has one (no parsing starts). */
  find(uri: vscode.Uri): LogDocumentAnnotation | undefined;
  /** Fires after a document's session changed (new lines, a start over, forced on). */
  readonly onDidChange: vscode.Event<vscode.Uri>;
  /** Fires when an annotated document was closed (its session is gone). */
  readonly onDidClose: vscode.Event<vscode.Uri>;
}

/** What commands need of the open logs besides reading them. */
export interface LogDocuments extends LogSessions {
  /** Annotate a document even if it does not look like a log. */
  force(doc: vscode.TextDocument): LogDocumentAnnotation | undefined;
  /** Resolves when every line of the document's current version is parsed. */
  settled(doc: vscode.TextDocument): Promise<LogDocumentAnnotation | undefined>;
}

/**
 * A log whose requests the view shows: an open document or a large file streamed from disk. What
 * the view reads of it is the core's read model of a log (LogReadModel: its request index, its
 * engine, whether it is still being read), the one the timeline reads too, with the document the
 * view reveals lines in.
 */
export interface RequestLogSource extends Pick<LogReadModel, 'tracker' | 'engine'>, Partial<Pick<LogReadModel, 'reading' | 'records'>> {
  readonly label: string;
  readonly uri: vscode.Uri;
}

/** The Requests view's source for a log's session (follows it when the session starts over). */
export function documentLogSource(uri: vscode.Uri,
  session: Pick<LogReadModel, 'tracker' | 'engine'> & Partial<Pick<LogReadModel, 'records'>> & { readonly syncing: boolean }): RequestLogSource {
  return {
    label: uri.path.split('/').pop() ?? uri.path,
    uri,
    get tracker() { return session.tracker; },
    get engine() { return session.engine; },
    get reading() { return session.syncing; },
    // Its lines (a session that keeps none, a large log's, has an empty list): what names a request's transfer id.
    get records() { return session.records; },
  };
}

