// `hop 2 · api-server · v1/engine/async_llm.py:439` above every line a request hop printed.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import type { SourceService } from './sourceService';
import { displaySource, driftText, hopDef, hopLabel } from './hopPresentation';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';

export class HopCodeLensProvider extends Disposable implements vscode.CodeLensProvider {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly logs: LogDocumentService, private readonly sources: SourceService) {
    super();
    this._register(logs.onDidChange(() => this.changed.fire()));
    this._register(sources.onDidChange(() => this.changed.fire()));
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const ann = this.logs.get(doc);
    if (!ann || !ann.hasHops) return [];
    const lenses: vscode.CodeLens[] = [];
    const records = ann.annotator.records;
    const lineCount = doc.lineCount;
    for (let i = 0; i < records.length && i < lineCount; i++) {
      const rec = records[i];
      if (rec.hop === null || rec.continuation) continue;
      const def = hopDef(rec);
      if (!def) continue;
      const src = this.sources.locate(rec);
      const range = new vscode.Range(i, 0, i, 0);
      const where = src ? displaySource(src.location) : `${def.process}, no source line`;
      const drift = src ? driftText(src.location) : '';
      const title = `${hopLabel(def)} · ${rec.role ?? def.role} · ${where}${drift ? ` (${drift})` : ''}${src && !src.local ? ' ↗' : ''}`;
      lenses.push(new vscode.CodeLens(range, src
        ? { title, command: CommandIds.openSource, arguments: [doc.uri, i], tooltip: src.local ? `Open ${src.target.fsPath}:${src.location.line}` : `Open ${src.target.toString()} (no local checkout)` }
        : { title, command: '' }));
    }
    return lenses;
  }
}
