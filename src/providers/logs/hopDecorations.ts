// A faint end-of-line note on each hop: the time since the previous hop of the same request.
// Only the visible lines (and a margin) are decorated, so huge logs cost what is on screen.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import { Disposable } from '../../util/dispose';

const MARGIN_LINES = 200;

export class HopDeltaDecorations extends Disposable {
  private readonly type = this._register(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private pending: NodeJS.Timeout | undefined;

  constructor(private readonly logs: LogDocumentService) {
    super();
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()));
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges(() => this.schedule()));
    this._register(logs.onDidChange(() => this.schedule()));
    this._register({ dispose: () => clearTimeout(this.pending) });
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => { for (const e of vscode.window.visibleTextEditors) this.update(e); }, 50);
  }

  update(editor: vscode.TextEditor): void {
    const ann = this.logs.get(editor.document);
    if (!ann || !ann.hasHops) { editor.setDecorations(this.type, []); return; }
    const tracker = ann.annotator.tracker;
    const options: vscode.DecorationOptions[] = [];
    const groups = new Map<string, ReturnType<typeof tracker.get>>();
    for (const visible of editor.visibleRanges) {
      const from = Math.max(0, visible.start.line - MARGIN_LINES);
      const to = Math.min(editor.document.lineCount - 1, visible.end.line + MARGIN_LINES);
      for (let line = from; line <= to; line++) {
        const rec = ann.record(line);
        if (!rec || rec.hop === null || rec.continuation) continue;
        const rid = rec.rid;
        let text: string;
        if (rid === null) {
          continue;
        } else {
          if (!groups.has(rid)) groups.set(rid, tracker.get(rid));
          const hop = groups.get(rid)?.hops.find((h) => h.line === line + 1);
          if (!hop) continue;
          text = hop.sincePrevious ? `Δ ${hop.sincePrevious.text} since previous hop` : 'first hop of this request';
        }
        const end = editor.document.lineAt(line).range.end;
        options.push({ range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  ${text}` } } });
      }
    }
    editor.setDecorations(this.type, options);
  }
}
