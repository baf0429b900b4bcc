/**
 * A small XML well-formedness checker for the demo's SVG: one root element, every tag closed in
 * order, attributes quoted and unique, only the five predefined entities or character references.
 * Returns the element tree so tests can look inside.
 */

export interface XmlElement {
  name: string;
  /** Attribute values with entity references decoded. */
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_:][-A-Za-z0-9_:.]*$/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;

function checkText(text: string, where: string): void {
  const stripped = text.replace(ENTITY, '');
  if (stripped.includes('&'))
    throw new SyntaxError(`Unknown or unterminated entity in ${where}: ${JSON.stringify(text.slice(0, 60))}`);
  if (stripped.includes('<')) throw new SyntaxError(`Raw "<" in ${where}`);
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Replaces the entity and character references of well-formed text by what they stand for. */
function decode(text: string): string {
  return text.replace(ENTITY, (reference) => {
    const body = reference.slice(1, -1);
    if (body.startsWith('#x')) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith('#')) return String.fromCodePoint(parseInt(body.slice(1), 10));
    return NAMED[body] as string;
  });
}

function parseAttributes(source: string, tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const pattern = /\s+([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')/y;
  let rest = source;
  while (rest.trim() !== '') {
    pattern.lastIndex = 0;
    const match = pattern.exec(rest);
    if (!match) throw new SyntaxError(`Malformed attributes in <${tag}>: ${JSON.stringify(rest.slice(0, 60))}`);
    const [, name, , double, single] = match;
    if (!NAME.test(name as string)) throw new SyntaxError(`Bad attribute name "${name}" in <${tag}>`);
    if (Object.hasOwn(attributes, name as string)) throw new SyntaxError(`Duplicate attribute "${name}" in <${tag}>`);
    const value = double ?? single ?? '';
    checkText(value, `attribute ${name} of <${tag}>`);
    attributes[name as string] = decode(value);
    rest = rest.slice(match[0].length);
  }
  return attributes;
}

/** Parses `source` or throws a `SyntaxError` saying what is not well-formed. */
export function parseXml(source: string): XmlElement {
  let body = source.replace(/^\uFEFF?\s*(<\?xml[^?]*\?>)?/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let position = 0;
  body = body.replace(/<!--[\s\S]*?-->/g, (comment) => {
    if (comment.slice(4, -3).includes('--')) throw new SyntaxError('"--" inside a comment');
    return '';
  });
  while (position < body.length) {
    const open = body.indexOf('<', position);
    const text = open === -1 ? body.slice(position) : body.slice(position, open);
    if (text !== '') {
      const parent = stack.at(-1);
      if (!parent) {
        if (text.trim() !== '')
          throw new SyntaxError(`Text outside the root element: ${JSON.stringify(text.slice(0, 40))}`);
      } else {
        checkText(text, `<${parent.name}>`);
        parent.text += decode(text);
      }
    }
    if (open === -1) break;
    const close = body.indexOf('>', open);
    if (close === -1) throw new SyntaxError('Unterminated tag');
    const tag = body.slice(open + 1, close);
    position = close + 1;
    if (tag.startsWith('/')) {
      const name = tag.slice(1).trim();
      const top = stack.pop();
      if (!top || top.name !== name) throw new SyntaxError(`</${name}> closes <${top?.name ?? 'nothing'}>`);
      continue;
    }
    const selfClosing = tag.endsWith('/');
    const inner = selfClosing ? tag.slice(0, -1) : tag;
    const name = /^[^\s/>]+/.exec(inner)?.[0] ?? '';
    if (!NAME.test(name)) throw new SyntaxError(`Bad element name "${name}"`);
    const element: XmlElement = {
      name,
      attributes: parseAttributes(inner.slice(name.length), name),
      children: [],
      text: '',
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else if (root) throw new SyntaxError('More than one root element');
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (stack.length > 0) throw new SyntaxError(`<${stack.at(-1)?.name}> is never closed`);
  if (!root) throw new SyntaxError('No root element');
  return root;
}

/** Every element below (and including) `element`, depth first. */
export function allElements(element: XmlElement): XmlElement[] {
  return [element, ...element.children.flatMap(allElements)];
}
