// vLLM's own `[file.py:123]` becomes a link, even on lines that are not hops.
import * as vscode from 'vscode';
import type { LogDocumentService } from './logDocuments';
import type { SourceService } from './sourceService';

class FileInfoLink extends vscode.DocumentLink {
  constructor(range: vscode.Range, readonly uri: vscode.Uri, readonly line: number) { super(range); }
}

export class FileInfoLinkProvider implements vscode.DocumentLinkProvider<FileInfoLink> {
  constructor(private readonly logs: LogDocumentService, private readonly sources: SourceService) {}

  provideDocumentLinks(doc: vscode.TextDocument): FileInfoLink[] {
    const ann = this.logs.get(doc);
    if (!ann) return [];
    const links: FileInfoLink[] = [];
    const records = ann.annotator.records;
    for (let i = 0; i < records.length && i < doc.lineCount; i++) {
      const rec = records[i];
      if (rec.fileinfo === null || rec.lineno === null || rec.engine === 'other') continue;
      const text = doc.lineAt(i).text;
      const needle = `${rec.fileinfo}:${rec.lineno}`;
      const at = text.indexOf(needle);
      if (at < 0) continue;
      links.push(new FileInfoLink(new vscode.Range(i, at, i, at + needle.length), doc.uri, i));
    }
    return links;
  }

  resolveDocumentLink(link: FileInfoLink): FileInfoLink {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === link.uri.toString());
    const rec = doc ? this.logs.get(doc)?.record(link.line) : undefined;
    const src = rec ? this.sources.locate(rec) : null;
    if (src) {
      link.target = src.target;
      link.tooltip = src.local ? `${src.location.path}:${src.location.line}${src.location.verified ? '' : ' (not verified)'}` : 'Open at the pinned commit (no local checkout)';
    }
    return link;
  }
}
