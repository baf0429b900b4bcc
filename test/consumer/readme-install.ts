/**
 * Reads the README's "Install in your project" code blocks, so the consumer check runs what a user
 * copies. A block is marked by an HTML comment on the line right before its opening fence:
 *
 *     <!-- install: server.js -->
 *     ```js
 *
 * A variant block (`server.js, CommonJS imports`, `server.ts, without Redis`) holds only what
 * changes: its imports (or `require` lines) replace the file's imports, and each of its other
 * statements, a one-line `const name = …;` with the comment lines above it, replaces the file's
 * statement of that name with the comment lines above that; a const the file does not have goes
 * in just before the next one that replaces a statement of the file. `withVariant` applies one.
 */

export interface InstallBlock {
  /** The fence's language, e.g. `ts`. */
  lang: string;
  text: string;
  /** 1-based line of the opening fence, for messages. */
  line: number;
}

/** Every marked block of `markdown`, by marker name. */
export function installBlocks(markdown: string): Map<string, InstallBlock> {
  const lines = markdown.split('\n');
  const blocks = new Map<string, InstallBlock>();
  lines.forEach((line, i) => {
    const marker = /^<!-- install: (.+?) -->\s*$/.exec(line);
    if (!marker) return;
    const name = marker[1] as string;
    const open = /^```(\w*)\s*$/.exec(lines[i + 1] ?? '');
    const end = lines.findIndex((candidate, j) => j > i + 1 && /^```\s*$/.test(candidate));
    if (!open || end === -1) throw new SyntaxError(`README line ${i + 1}: "${name}" is not followed by a code block.`);
    if (blocks.has(name)) throw new SyntaxError(`README line ${i + 1}: a second block marked "${name}".`);
    blocks.set(name, { lang: open[1] ?? '', text: `${lines.slice(i + 2, end).join('\n')}\n`, line: i + 2 });
  });
  return blocks;
}

/** The block marked `name`; throws naming the marker when the README has none. */
export function installBlock(blocks: Map<string, InstallBlock>, name: string): InstallBlock {
  const block = blocks.get(name);
  if (block === undefined) throw new Error(`README: no code block marked <!-- install: ${name} -->.`);
  return block;
}

const IMPORT = /^(import\s.*\sfrom\s'[^']+';|const\s.*=\s*require\('[^']+'\);)$/;
const CONST = /^const (\w+) = .*;$/;

/** The packages `npm install` lines of a block name (options left out), in order. */
export function npmInstallPackages(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^npm install\s/.test(line.trim()))
    .flatMap((line) => line.trim().split(/\s+/).slice(2))
    .filter((word) => !word.startsWith('-'));
}

/** `base` with the variant applied (see the module comment); throws when a part does not apply. */
export function withVariant(base: string, variant: string): string {
  const variantLines = variant.trimEnd().split('\n');
  const imports = variantLines.filter((line) => IMPORT.test(line));
  let lines = base.split('\n');

  const firstImport = lines.findIndex((line) => IMPORT.test(line));
  let lastImport = firstImport;
  while (lastImport + 1 < lines.length && IMPORT.test(lines[lastImport + 1] as string)) lastImport++;
  if (firstImport === -1 || lines.slice(lastImport + 1).some((line) => /^import\s/.test(line))) {
    throw new Error('withVariant: the file must open with one run of single-line imports.');
  }
  if (imports.length > 0) lines = [...lines.slice(0, firstImport), ...imports, ...lines.slice(lastImport + 1)];

  let comments: string[] = [];
  /** New consts (with their comments), waiting for the statement they go before. */
  let added: string[] = [];
  for (const line of variantLines) {
    if (IMPORT.test(line) || line.trim() === '') {
      comments = [];
    } else if (line.startsWith('//')) {
      comments.push(line);
    } else {
      const name = CONST.exec(line)?.[1];
      if (name === undefined) throw new Error(`withVariant: "${line}" is neither an import nor a one-line const.`);
      const at = lines.findIndex((candidate) => candidate.startsWith(`const ${name} =`));
      if (at === -1) {
        added = [...added, ...comments, line];
        comments = [];
        continue;
      }
      if (!CONST.test(lines[at] as string)) {
        throw new Error(`withVariant: the file has no one-line \`const ${name} = …;\` to replace.`);
      }
      let from = at;
      while (from > 0 && (lines[from - 1] as string).startsWith('//')) from--;
      lines = [...lines.slice(0, from), ...added, ...comments, line, ...lines.slice(at + 1)];
      comments = [];
      added = [];
    }
  }
  if (added.length > 0) {
    throw new Error(`withVariant: "${added[added.length - 1]}" is new and no const of the file follows it.`);
  }
  return lines.join('\n');
}
