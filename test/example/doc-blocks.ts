/**
 * Reads the fenced code blocks of a Markdown page, with the HTML comments that mark them. A marker is
 * a comment of the form `<!-- name: value -->` on a line of its own; the markers of a block are the
 * run of such lines right above its opening fence:
 *
 *     <!-- file: express.ts -->
 *     ```ts
 *
 * Fences may be indented (a block inside a list item); the block's text is dedented by the fence's
 * indentation, and its closing fence has the same indentation.
 */

export interface DocBlock {
  /** The fence's language, e.g. `ts` (empty without one). */
  lang: string;
  /** The code, dedented, ending with a newline. */
  text: string;
  /** 1-based line of the first line of code, for messages. */
  line: number;
  /** The block's markers, by name: `file` → `express.ts`. */
  markers: ReadonlyMap<string, string>;
}

const FENCE = /^(\s*)```([\w-]*)\s*$/;
const MARKER = /^\s*<!-- ([\w-]+): (.+?) -->\s*$/;

/** Every fenced block of `markdown`, in document order. */
export function docBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (!open) continue;
    const indent = open[1] as string;
    const close = lines.findIndex((line, j) => j > i && line.trimEnd() === `${indent}\`\`\``);
    if (close === -1) throw new SyntaxError(`line ${i + 1}: the code block is never closed.`);
    const markers = new Map<string, string>();
    for (let j = i - 1; j >= 0; j--) {
      const marker = MARKER.exec(lines[j] as string);
      if (!marker) break;
      if (markers.has(marker[1] as string)) throw new SyntaxError(`line ${j + 1}: a second "${marker[1]}" marker.`);
      markers.set(marker[1] as string, marker[2] as string);
    }
    const code = lines.slice(i + 1, close).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
    blocks.push({ lang: open[2] as string, text: `${code.join('\n')}\n`, line: i + 2, markers });
    i = close;
  }
  return blocks;
}

/** The blocks marked `<!-- file: NAME -->`, by file name; throws on a name used twice. */
export function fileBlocks(markdown: string): Map<string, DocBlock> {
  const files = new Map<string, DocBlock>();
  for (const block of docBlocks(markdown)) {
    const name = block.markers.get('file');
    if (name === undefined) continue;
    if (files.has(name)) throw new SyntaxError(`line ${block.line - 1}: a second block marked file: ${name}.`);
    files.set(name, block);
  }
  return files;
}
