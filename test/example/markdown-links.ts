/**
 * Reads the relative links of a Markdown document and the anchors its headings get, so a test can
 * check that every link of the README and of docs/ leads somewhere: the file (or directory) exists,
 * and a `#fragment` names a heading of the Markdown file it points into.
 */

export interface MarkdownLink {
  /** The link target as written, e.g. `../src/cost/` or `cost-model.md#list-sizes`. */
  target: string;
  /** The part before `#` (empty for a link into the same document). */
  path: string;
  /** The part after `#`, if any. */
  fragment: string | undefined;
  /** 1-based line of the link, for failure messages. */
  line: number;
}

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

/** The document with fenced code blocks blanked out (line breaks kept, so line numbers stay). */
function withoutFences(markdown: string): string {
  return markdown.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[ \t]*$/gm, blank);
}

/** The document with fenced code blocks and inline code blanked out. */
function withoutCode(markdown: string): string {
  return withoutFences(markdown).replace(/(`+)[^`\n][\s\S]*?\1/g, blank);
}

/**
 * Every relative link (`[text](target)` and `![alt](target)`) outside code; absolute URLs
 * (`https:`, `mailto:`, ...) are left out. Link text may hold code and span lines.
 */
export function relativeLinks(markdown: string): MarkdownLink[] {
  const text = withoutCode(markdown);
  const links: MarkdownLink[] = [];
  for (const match of text.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    links.push({
      target,
      path: hash === -1 ? target : target.slice(0, hash),
      fragment: hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1)),
      line: text.slice(0, match.index).split('\n').length,
    });
  }
  return links;
}

/**
 * The anchor GitHub gives a heading: its text without Markdown (code ticks, emphasis, link
 * targets), lower-cased, punctuation other than `-` and `_` dropped, each space a `-`.
 */
export function headingSlug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of every heading outside code, a repeated one numbered as GitHub does (`-1`, `-2`). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = headingSlug(match[1] as string);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
