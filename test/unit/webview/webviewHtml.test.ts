// The webview page around a body: CSP with a nonce, media from the extension, the title and
// the JSON handed to scripts. Hostile text in the title and the data stays text and data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { renderWebview, webviewOptions } from '../../../src/features/shared/webviewHtml';
import { HOSTILE } from '../text/hostile';
import { activeMarkup, parsePage } from './parsedHtml';

/** Just what renderWebview uses of vscode.Uri and vscode.Webview. */
class FakeUri {
  constructor(readonly scheme: string, readonly path: string) {}
  with(change: { path?: string }): FakeUri { return new FakeUri(this.scheme, change.path ?? this.path); }
  toString(): string { return `${this.scheme}://host${this.path}`; }
}
const extensionUri = new FakeUri('file', '/ext') as unknown as vscode.Uri;
const webview = { cspSource: 'https://webview.test', asWebviewUri: (u: vscode.Uri) => new FakeUri('https', u.path) as unknown as vscode.Uri };
const NONCE = 'bm9uY2Utb2YtdGhpcy1wYWdl';
const parsed = (s: string) => s.replace(/\r\n?/g, '\n');

function page(title: string, data: unknown): string {
  return renderWebview(webview, extensionUri, { title, bodyHtml: '<main id="report">body</main>', data, scripts: ['report.js'], styles: ['report.css'] }, NONCE);
}

test('hostile text in the title and the script data changes nothing but the text and the data', () => {
  const plain = parsePage(page('Traced request hoplens-1', { rid: 'hoplens-1' }));
  for (const h of HOSTILE) {
    const data = { rid: h, lines: [h, { nested: h }] };
    const p = parsePage(page(`Traced request ${h}`, data));
    assert.deepEqual(activeMarkup(p, NONCE), [], JSON.stringify(h));
    assert.deepEqual(p.shape, plain.shape, `${JSON.stringify(h)}: the page gained or lost an element or attribute`);
    const title = p.elements.find((e) => e.tagName === 'title')!;
    assert.equal(title.childNodes.map((c) => ('value' in c ? c.value : '')).join(''), parsed(`Traced request ${h}`));
    const body = p.elements.find((e) => e.tagName === 'body')!;
    assert.deepEqual(JSON.parse(body.attrs.find((a) => a.name === 'data-hoplens')!.value), data);
  }
});

test('the page allows only its own nonce script and media from the extension', () => {
  const p = parsePage(page('t', undefined));
  const csp = p.elements.find((e) => e.tagName === 'meta' && e.attrs.some((a) => a.value === 'Content-Security-Policy'))!;
  assert.equal(csp.attrs.find((a) => a.name === 'content')!.value,
    "default-src 'none'; img-src https://webview.test data:; style-src https://webview.test; script-src 'nonce-bm9uY2Utb2YtdGhpcy1wYWdl'; font-src https://webview.test");
  assert.deepEqual(p.elements.filter((e) => e.tagName === 'script').map((e) => e.attrs.map((a) => `${a.name}=${a.value}`)),
    [[`nonce=${NONCE}`, 'src=https://host/ext/media/report.js']]);
  assert.deepEqual(p.elements.filter((e) => e.tagName === 'link').map((e) => e.attrs.find((a) => a.name === 'href')!.value), ['https://host/ext/media/report.css']);
  assert.equal(p.elements.find((e) => e.tagName === 'body')!.attrs.length, 0, 'no data attribute without data');
  // Two renders never share a nonce.
  const nonceOf = (html: string) => /script-src 'nonce-([^']+)'/.exec(html)![1];
  assert.notEqual(nonceOf(renderWebview(webview, extensionUri, { title: 't', bodyHtml: '' })), nonceOf(renderWebview(webview, extensionUri, { title: 't', bodyHtml: '' })));
});

test('webviews load only from media/ of the extension, with scripts on', () => {
  const o = webviewOptions(extensionUri);
  assert.equal(o.enableScripts, true);
  assert.deepEqual(o.localResourceRoots!.map(String), ['file://host/ext/media']);
});
