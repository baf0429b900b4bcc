/** `name:line:column: …` for a GraphQL text the JavaScript stack could not `doing` (parse, validate): where it is deepest. */
export function tooDeepLine(name: string, text: string, doing: string): string {
  const { depth, line, column } = deepestNesting(text);
  return `${name}:${line}:${column}: nested ${depth} levels deep, too deep to ${doing}.`;
}

/** Where a GraphQL text is nested deepest: its depth in `{`, `[` and `(`, and the place it is reached. */
export interface DeepestNesting {
  readonly depth: number;
  readonly line: number;
  readonly column: number;
}

/**
 * The deepest nesting of selection sets, lists and argument lists in a GraphQL text (outside strings
 * and comments), for the message that names a file too deep to read: one pass, no recursion, so it
 * answers for any text the parser could not.
 */
export function deepestNesting(text: string): DeepestNesting {
  let depth = 0;
  let deepest: DeepestNesting = { depth: 0, line: 1, column: 1 };
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\n') {
      line++;
      lineStart = index + 1;
    } else if (char === '#') {
      while (index + 1 < text.length && text[index + 1] !== '\n') index++;
    } else if (char === '"') {
      const block = text.startsWith('"""', index);
      const end = block ? text.indexOf('"""', index + 3) : stringEnd(text, index + 1);
      if (end === -1) break;
      for (let at = index; at < end; at++) {
        if (text[at] === '\n') {
          line++;
          lineStart = at + 1;
        }
      }
      index = block ? end + 2 : end;
    } else if (char === '{' || char === '[' || char === '(') {
      depth++;
      if (depth > deepest.depth) deepest = { depth, line, column: index - lineStart + 1 };
    } else if (char === '}' || char === ']' || char === ')') {
      depth = Math.max(0, depth - 1);
    }
  }
  return deepest;
}

/** The index of the `"` that closes a one-line string whose text starts at `from` (-1: none). */
function stringEnd(text: string, from: number): number {
  for (let index = from; index < text.length; index++) {
    const char = text[index];
    if (char === '\\') index++;
    else if (char === '"') return index;
    else if (char === '\n') return index;
  }
  return -1;
}
