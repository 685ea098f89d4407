// Hovering a hop line explains it: what it means, which flag turns it on, where it is, drift.
import * as vscode from 'vscode';
import type { LogSessions } from './logDocuments';
import { displaySource, driftText, hopLabel } from './hopPresentation';
import { citation, findHop, getHopTable } from '../../engines/index';
import { packageRelativePath } from '../../engines/registry';
import { CommandIds } from '../../commandIds';
import type { SourceLocation } from '../../core/source/types';

/** Command arguments for a Markdown link target: brackets encoded too (encodeURIComponent keeps them, and a `)` would end the link). */
function commandArgs(args: unknown[]): string {
  return encodeURIComponent(JSON.stringify(args)).replace(/[()!'*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** How an unverified location is shown: moved from another file, a similar statement, changed since, or just not verified. */
function unverifiedLabel(loc: SourceLocation): string {
  if (loc.candidates && loc.candidates.length > 1) {
    return ` — one of ${loc.candidates.length} statements that print this text (Open picks one; none is verified)`;
  }
  if (loc.movedFrom) return ` — moved from ${packageRelativePath(loc.movedFrom)}: not verified here (the line was printed by the older file)`;
  if (loc.similar) return ' — similar statement (lower confidence): another file or code path prints this text';
  if (loc.changed) return ' — changed since: the statement no longer prints every part of this line';
  return ' — not verified against the message';
}

export class HopHoverProvider implements vscode.HoverProvider {
  constructor(private readonly logs: LogSessions) {}

  provideHover(doc: vscode.TextDocument, position: vscode.Position): vscode.Hover | undefined {
    const session = this.logs.get(doc)?.session;
    if (!session) return undefined;
    // Records pasted onto one line: the one under the cursor, over the columns it covers.
    const line = position.line;
    const part = session.partAt(line, position.character);
    const place = session.lineParts(line, doc.lineAt(line).text.length).find((p) => p.part === part);
    const rec = place?.record;
    if (!place || !rec || rec.engine === 'other') return undefined;
    const def = rec.hop !== null ? findHop(rec.engine, rec.hop) : undefined;
    const src = session.source(line, part);
    if (!def && !src && !rec.timeUnknown) return undefined;
    const md = new vscode.MarkdownString(undefined, true);
    // Log text is appended escaped (appendText); the commands are ours: open the source, show
    // the request's timeline (the id goes only into the link's JSON arguments, URI-encoded).
    md.isTrusted = { enabledCommands: [CommandIds.openSource, CommandIds.showRequestTimeline] };
    md.supportHtml = false;
    if (def) {
      const table = getHopTable(def.engine);
      md.appendMarkdown(`**HopLens · ${hopLabel(def)}** (${def.id}) · ${def.role} · ${def.level}\n\n`);
      md.appendText(def.meaning);
      md.appendMarkdown('\n\n');
      md.appendMarkdown(`Turned on by: `);
      md.appendText(def.gate);
      md.appendMarkdown(`\n\nCited at the pin \`${table.pinnedSha.slice(0, 12)}\`: `);
      md.appendText(citation(def));
      md.appendMarkdown('\n\n');
    }
    if (src) {
      const loc = src.location;
      const local = src.file !== null;
      md.appendMarkdown(local ? 'Checkout: ' : 'No local checkout: opens the pinned file on the public repository: ');
      md.appendText(displaySource(loc));
      if (local) md.appendMarkdown(loc.verified ? ' — verified: the logging call there matches this message' : unverifiedLabel(loc));
      const args = commandArgs(part > 1 ? [doc.uri.toString(), line, part] : [doc.uri.toString(), line]);
      md.appendMarkdown(` · [Open](command:${CommandIds.openSource}?${args})`);
      // Why not verified, as the resolver found it (moved from another file, another level, a changed wording).
      if (local && !loc.verified && loc.note) { md.appendMarkdown('\n\n'); md.appendText(`Why: ${loc.note}.`); }
      const drift = driftText(loc);
      if (drift) {
        md.appendMarkdown(`\n\nDrift: the statement is ${drift} from the line the server printed (the checkout is at another commit than the server).`);
      }
      md.appendMarkdown('\n\n');
    }
    if (rec.rid) {
      md.appendMarkdown('Request: ');
      md.appendText(rec.rid);
      const g = session.tracker.brief(rec.rid);
      if (g) md.appendMarkdown(` · ${g.hops.length} hop lines${g.span ? ` over ${g.span.text}` : ''}`);
      md.appendMarkdown(` · [Timeline](command:${CommandIds.showRequestTimeline}?${commandArgs([rec.rid])})`);
    }
    if (rec.timeUnknown) { md.appendMarkdown('\n\n'); md.appendText(`Time unknown: ${rec.timeUnknown}.`); }
    if (rec.timeResolution === 's') {
      md.appendMarkdown('\n\n_Timestamps in this log have whole seconds: deltas are "≤1 s" at best. `HopLens: Create Logging Config` adds milliseconds._');
    }
    return new vscode.Hover(md, new vscode.Range(line, place.start, line, place.end));
  }
}
