// HTML parsed as a browser parses it (parse5 follows the HTML standard's parser), reduced to
// what tells markup the builder wrote from markup that data smuggled in.
import { parse, parseFragment, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

export interface ParsedHtml {
  elements: Element[];
  /** The page's element structure: tag names with their attribute names, in document order. */
  shape: string[];
  /** All text, concatenated per text node (the page as a reader sees it). */
  texts: string[];
  /** Every attribute value, `tag[name]=value`. */
  attributes: string[];
}

function collect(root: Node): ParsedHtml {
  const out: ParsedHtml = { elements: [], shape: [], texts: [], attributes: [] };
  const walk = (n: Node) => {
    if (n.nodeName === '#text') out.texts.push((n as DefaultTreeAdapterMap['textNode']).value);
    if ('tagName' in n) {
      out.elements.push(n);
      out.shape.push(`${n.tagName}(${n.attrs.map((a) => a.name).join(',')})`);
      for (const a of n.attrs) out.attributes.push(`${n.tagName}[${a.name}]=${a.value}`);
    }
    if ('childNodes' in n) n.childNodes.forEach(walk);
  };
  walk(root);
  return out;
}

export function parsePage(html: string): ParsedHtml { return collect(parse(html)); }
export function parseBody(html: string): ParsedHtml { return collect(parseFragment(html)); }

/** Event handlers, scripts without the page's nonce, and elements that load or act. */
export function activeMarkup(p: ParsedHtml, nonce?: string): string[] {
  const found: string[] = [];
  for (const e of p.elements) {
    for (const a of e.attrs) if (/^on/i.test(a.name)) found.push(`${e.tagName}[${a.name}]`);
    if (e.tagName === 'script' && (!nonce || !e.attrs.some((a) => a.name === 'nonce' && a.value === nonce))) found.push('<script> without the nonce');
    if (['img', 'iframe', 'object', 'embed', 'form', 'base', 'a'].includes(e.tagName)) {
      const href = e.attrs.find((a) => a.name === 'href' || a.name === 'src')?.value;
      // The report's own links are `<a href="#" data-line=…>`; anything else came from data.
      if (!(e.tagName === 'a' && href === '#')) found.push(`<${e.tagName}${href ? ` ${href}` : ''}>`);
    }
  }
  return found;
}
