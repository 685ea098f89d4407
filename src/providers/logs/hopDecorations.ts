// A faint end-of-line note on each hop: the time since the previous hop of the same request.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import { Disposable } from '../../util/dispose';

export class HopDeltaDecorations extends Disposable {
  private readonly type = this._register(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private pending: NodeJS.Timeout | undefined;

  constructor(private readonly logs: LogDocumentService) {
    super();
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()));
    this._register(logs.onDidChange(() => this.schedule()));
    this._register({ dispose: () => clearTimeout(this.pending) });
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => this.updateAll(), 100);
  }

  private updateAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.update(editor);
  }

  update(editor: vscode.TextEditor): void {
    const ann = this.logs.get(editor.document);
    if (!ann || !ann.hasHops) { editor.setDecorations(this.type, []); return; }
    const tracker = ann.annotator.tracker;
    const options: vscode.DecorationOptions[] = [];
    for (const rid of tracker.rids()) {
      const group = tracker.get(rid);
      if (!group) continue;
      for (const hop of group.hops) {
        const line = hop.line - 1;
        if (line >= editor.document.lineCount) continue;
        const text = hop.sincePrevious ? `Δ ${hop.sincePrevious.text} since previous hop` : 'first hop of this request';
        const end = editor.document.lineAt(line).range.end;
        options.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  ${text}` } } });
      }
    }
    editor.setDecorations(this.type, options);
  }
}
