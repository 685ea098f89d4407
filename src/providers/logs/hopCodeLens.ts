// `hop 2 · api-server · v1/engine/async_llm.py:439` above every line a request hop printed.
// Lenses are listed cheaply for the whole document and resolved (source lookup, title,
// command) only when VS Code shows them, so a 50,000-line log costs what is on screen.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import type { SourceService } from './sourceService';
import { displaySource, driftText, hopDef, hopLabel } from './hopPresentation';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';
import { isWindowed, lineWindows } from './visibleWindow';


/** Up to this many lenses are resolved when listed; more are resolved as VS Code shows them. */
const RESOLVE_EAGERLY_UP_TO = 1000;

class HopLens extends vscode.CodeLens {
  constructor(range: vscode.Range, readonly doc: vscode.TextDocument, readonly line: number) { super(range); }
}

export class HopCodeLensProvider extends Disposable implements vscode.CodeLensProvider<HopLens> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly logs: LogDocumentService, private readonly sources: SourceService) {
    super();
    this._register(logs.onDidChange(() => this.changed.fire()));
    this._register(sources.onDidChange(() => this.changed.fire()));
    // For big logs the listed window follows scrolling.
    let timer: NodeJS.Timeout | undefined;
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      if (!isWindowed(e.textEditor.document.lineCount)) return;
      clearTimeout(timer);
      timer = setTimeout(() => this.changed.fire(), 150);
    }));
    this._register({ dispose: () => clearTimeout(timer) });
  }

  provideCodeLenses(doc: vscode.TextDocument): HopLens[] {
    const ann = this.logs.get(doc);
    if (!ann || !ann.hasHops) return [];
    const lenses: HopLens[] = [];
    const records = ann.annotator.records;
    let hopLines = 0;
    for (const n of ann.annotator.tracker.counts.values()) hopLines += n;
    const seen = new Set<number>();
    for (const [from, to] of lineWindows(doc, hopLines)) {
      const end = Math.min(to, records.length - 1);
      for (let i = from; i <= end; i++) {
        const rec = records[i];
        if (rec.hop !== null && !rec.continuation && !seen.has(i)) { seen.add(i); lenses.push(new HopLens(new vscode.Range(i, 0, i, 0), doc, i)); }
      }
    }
    // A typical log: titles now, so no blank lens rows flash while VS Code resolves them.
    if (lenses.length <= RESOLVE_EAGERLY_UP_TO) for (const lens of lenses) this.resolveCodeLens(lens);
    return lenses;
  }

  resolveCodeLens(lens: HopLens): HopLens {
    const rec = this.logs.get(lens.doc)?.record(lens.line);
    const def = rec ? hopDef(rec) : undefined;
    if (!rec || !def) { lens.command = { title: '', command: '' }; return lens; }
    const src = this.sources.locate(rec);
    const where = src ? displaySource(src.location) : `${def.process}, no source line`;
    const drift = src ? driftText(src.location) : '';
    const title = `${hopLabel(def)} · ${rec.role ?? def.role} · ${where}${drift ? ` (${drift})` : ''}${src && !src.local ? ' ↗' : ''}`;
    lens.command = src
      ? { title, command: CommandIds.openSource, arguments: [lens.doc.uri, lens.line], tooltip: src.local ? `Open ${src.target.fsPath}:${src.location.line}` : `Open ${src.target.toString()} (no local checkout)` }
      : { title, command: '' };
    return lens;
  }
}
