// What HopLens offers other extensions (and its own integration tests) about server logs:
// read-only views of its sessions, the checkouts lines resolve into, and what the Requests view
// lists. Built by activate() from the log feature's services; nothing here holds state.
import type * as vscode from 'vscode';
import type { Engine } from './hops/types';
import type { LogSessionView } from './core/session/logSession';
import type { LogFeature } from './providers/logs/logFeature';

export interface CheckoutView {
  readonly root: string;
  /** The commit checked out, when it is a git checkout. */
  readonly head: string | null;
  /** Resolves when its statement index is ready (lines then resolve verified). */
  readonly indexReady: Promise<unknown>;
}

export interface RequestsListed {
  /** The log the Requests view shows (a document, or a large log streamed from disk). */
  readonly uri: vscode.Uri;
  readonly label: string;
  /** The request ids listed, oldest first (the newest 1,000 of `total` that pass the filter). */
  readonly rids: readonly string[];
  readonly total: number;
  readonly filter: string;
}

export interface HopLensLogsApi {
  /** An open server log's session once every line of its current text is read; undefined for other documents. */
  session(doc: vscode.TextDocument): Promise<LogSessionView | undefined>;
  /** The checkout an engine's lines resolve into, once opened (null: none configured or found in the workspace). */
  checkout(engine: Engine): Promise<CheckoutView | null>;
  /** What the Requests view lists now. */
  requests(): RequestsListed | undefined;
}

export function logsApi(feature: LogFeature): HopLensLogsApi {
  return {
    session: async (doc) => (await feature.logs.settled(doc))?.session,
    checkout: async (engine) => {
      const r = await feature.sources.resolver(engine);
      return r && { root: r.checkout.root, head: r.checkout.head, indexReady: r.indexReady };
    },
    requests: () => feature.requests.listed(),
  };
}
