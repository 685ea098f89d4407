// Markdown rendered the way VS Code's Markdown preview renders it (markdown-it, raw HTML and
// bare-URL links on), then parsed as a browser parses HTML: what a reader of an export
// would get. Shared by the tests of Markdown that HopLens writes.
import { parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

// eslint-disable-next-line @typescript-eslint/no-require-imports
const MarkdownIt = require('markdown-it') as new (opts: { html: boolean; linkify: boolean }) => { render(src: string): string };
const md = new MarkdownIt({ html: true, linkify: true });

export interface RenderedMarkdown {
  html: string;
  /** Every element, in document order. */
  elements: Element[];
  /** Text of every <code> element. */
  codeTexts: string[];
}

function textOf(n: Node): string {
  if (n.nodeName === '#text') return (n as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in n ? n.childNodes.map(textOf).join('') : '';
}

export function renderMarkdown(src: string): RenderedMarkdown {
  const html = md.render(src);
  const elements: Element[] = [];
  const walk = (n: Node) => {
    if ('tagName' in n) elements.push(n);
    if ('childNodes' in n) n.childNodes.forEach(walk);
    if (n.nodeName === 'template') walk((n as DefaultTreeAdapterMap['template']).content);
  };
  walk(parse(html));
  return { html, elements, codeTexts: elements.filter((e) => e.tagName === 'code').map(textOf) };
}

/** Elements and attributes that act or load something: links, images, scripts, event handlers. */
export function activeMarkup(r: RenderedMarkdown): string[] {
  const found: string[] = [];
  for (const e of r.elements) {
    if (['a', 'img', 'script', 'iframe', 'object', 'embed', 'svg', 'form', 'input', 'button', 'style', 'link', 'meta'].includes(e.tagName)) found.push(`<${e.tagName}>`);
    for (const a of e.attrs) if (/^on/i.test(a.name) || /^(?:href|src|action)$/i.test(a.name)) found.push(`${e.tagName}[${a.name}=${a.value}]`);
  }
  return found;
}

/** Elements of Markdown's own formatting that data must not produce. */
export function formattingMarkup(r: RenderedMarkdown): string[] {
  return r.elements.filter((e) => ['em', 'strong', 's', 'del', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'blockquote', 'hr'].includes(e.tagName)).map((e) => `<${e.tagName}>`);
}
