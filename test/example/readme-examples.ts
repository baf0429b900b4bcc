/**
 * Reads the request/response examples out of a README so a test can replay them: every ```sh block
 * holding one `curl` command, directly followed by an ```http block with the response it shows.
 * An HTML comment `<!-- example: repeat=N -->` right before the curl block means "send it N times
 * and compare the last response".
 */

export interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface ShownResponse {
  status: number;
  /** Lower-cased header names → the value shown. */
  headers: Record<string, string>;
  /** The parsed JSON body shown, if any. */
  body: unknown;
}

export interface ReadmeExample {
  /** The heading the example sits under, e.g. `## Quick start`. */
  section: string;
  /** 1-based line of the curl block, for failure messages. */
  line: number;
  command: string;
  repeat: number;
  request: CurlRequest;
  response: ShownResponse;
}

/** Splits a shell command line the way sh would for the subset curl examples use (quotes, `\` newlines). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (c === '\\' && command[i + 1] === '\n') {
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end === -1) throw new SyntaxError(`Unterminated ' in: ${command}`);
      current = (current ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let value = '';
      for (i++; i < command.length && command[i] !== '"'; i++) {
        if (command[i] === '\\' && /["\\$`]/.test(command[i + 1] ?? '')) i++;
        value += command[i];
      }
      if (i >= command.length) throw new SyntaxError(`Unterminated " in: ${command}`);
      current = (current ?? '') + value;
    } else if (c === '\\') {
      current = (current ?? '') + (command[++i] ?? '');
    } else if (/\s/.test(c)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else if (c === '#' && current === undefined) {
      while (i < command.length && command[i] !== '\n') i++;
    } else {
      current = (current ?? '') + c;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

/** The request a `curl` command line sends (the options the README uses; anything else is an error). */
export function parseCurl(command: string): CurlRequest {
  const words = shellWords(command);
  if (words[0] !== 'curl') throw new SyntaxError(`Not a curl command: ${command}`);
  const request: CurlRequest = { method: '', url: '', headers: {}, body: undefined };
  let get = false;
  const urlEncoded: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (word === '-G' || word === '--get') {
      get = true;
    } else if (word === '--data-urlencode') {
      // `name=content`: the content URL-encoded (curl's rule for this form).
      const data = words[++i] ?? '';
      const equals = data.indexOf('=');
      urlEncoded.push(
        equals === -1
          ? encodeURIComponent(data)
          : `${data.slice(0, equals)}=${encodeURIComponent(data.slice(equals + 1))}`,
      );
    } else if (word === '-H' || word === '--header') {
      const header = words[++i] ?? '';
      const colon = header.indexOf(':');
      request.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data' || word === '--data-raw') {
      request.body = words[++i];
    } else if (word === '-X' || word === '--request') {
      request.method = words[++i] ?? '';
    } else if (word === '-i' || word === '--include' || word === '-s' || word === '--silent') {
      // Output options: the test reads the status and headers itself.
    } else if (/^https?:\/\//.test(word)) {
      request.url = word;
    } else {
      throw new SyntaxError(`curl option "${word}" is not understood by the README test; keep examples simple.`);
    }
  }
  if (!request.url) throw new SyntaxError(`No URL in: ${command}`);
  const data = [...(request.body === undefined ? [] : [request.body]), ...urlEncoded];
  if (get) {
    // -G: the data goes in the URL's query string, and the request is a GET.
    if (data.length > 0) request.url += `${request.url.includes('?') ? '&' : '?'}${data.join('&')}`;
    request.body = undefined;
    if (request.method === '') request.method = 'GET';
  } else if (urlEncoded.length > 0) {
    request.body = data.join('&');
  }
  if (request.method === '') request.method = request.body === undefined ? 'GET' : 'POST';
  return request;
}

/** `HTTP/1.1 200 OK`, header lines, a blank line, a JSON body. */
export function parseShownResponse(text: string): ShownResponse {
  const [head, ...rest] = text.split(/\n\s*\n/);
  const [statusLine, ...headerLines] = (head ?? '').split('\n');
  const status = /^HTTP\/[\d.]+ (\d{3})/.exec(statusLine ?? '');
  if (!status) throw new SyntaxError(`Not an HTTP status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    if (line.trim() === '' || line.trim() === '…') continue;
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyText = rest.join('\n\n').trim();
  return { status: Number(status[1]), headers, body: bodyText === '' ? undefined : JSON.parse(bodyText) };
}

/** Every curl example of the README, in document order. */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const lines = markdown.split('\n');
  const blocks: { lang: string; start: number; end: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end === -1) throw new SyntaxError(`Unclosed code block at line ${i + 1}`);
    blocks.push({ lang: open[1] ?? '', start: i, end, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  const examples: ReadmeExample[] = [];
  blocks.forEach((block, index) => {
    if (block.lang !== 'sh' || !/^curl\s/.test(block.text.trim())) return;
    const next = blocks[index + 1];
    const between = next
      ? lines
          .slice(block.end + 1, next.start)
          .join('\n')
          .trim()
      : '';
    if (next?.lang !== 'http' || between !== '') {
      throw new SyntaxError(
        `The curl example at line ${block.start + 1} must be followed directly by an \`\`\`http block with its response.`,
      );
    }
    const before = lines.slice(0, block.start);
    const marker = /^<!-- example: repeat=(\d+) -->\s*$/.exec(before.at(-1) ?? '');
    const section = [...before].reverse().find((line) => /^#{2,3} /.test(line)) ?? '';
    examples.push({
      section,
      line: block.start + 1,
      command: block.text.trim(),
      repeat: marker ? Number(marker[1]) : 1,
      request: parseCurl(block.text.trim()),
      response: parseShownResponse(next.text),
    });
  });
  return examples;
}

/**
 * Differences between what the README shows and what came back, allowing ±`tolerance` on every
 * number (numbers inside strings too) because refill between requests moves them slightly.
 */
export function differences(shown: unknown, actual: unknown, path = '$', tolerance = 1): string[] {
  if (typeof shown === 'number') {
    return typeof actual === 'number' && Math.abs(actual - shown) <= tolerance
      ? []
      : [`${path}: README shows ${shown}, got ${JSON.stringify(actual)}`];
  }
  if (typeof shown === 'string') {
    if (typeof actual !== 'string')
      return [`${path}: README shows ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
    const split = (s: string): string[] => s.split(/(-?\d+(?:\.\d+)?)/);
    const a = split(shown);
    const b = split(actual);
    const same =
      a.length === b.length &&
      a.every((part, i) => (i % 2 === 0 ? part === b[i] : Math.abs(Number(part) - Number(b[i])) <= tolerance));
    return same ? [] : [`${path}: README shows ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length) {
      return [`${path}: README shows ${shown.length} items, got ${JSON.stringify(actual)?.slice(0, 200)}`];
    }
    return shown.flatMap((item, i) => differences(item, actual[i], `${path}[${i}]`, tolerance));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: README shows an object, got ${JSON.stringify(actual)}`];
    const keys = new Set([...Object.keys(shown), ...Object.keys(actual)]);
    return [...keys].flatMap((key) =>
      differences(
        (shown as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
        tolerance,
      ),
    );
  }
  return Object.is(shown, actual)
    ? []
    : [`${path}: README shows ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
}

/**
 * Sends one example (its `http://localhost:4000/` pointed at `baseUrl`, `repeat` times) and lists how
 * the last answer differs from the one its document shows: the status, each header shown, the body.
 */
export async function replayExample(example: ReadmeExample & { file: string }, baseUrl: string): Promise<string[]> {
  const url = example.request.url.replace(/^http:\/\/localhost:4000\/?/, baseUrl);
  let response: Response | undefined;
  for (let i = 0; i < example.repeat; i++) {
    response = await fetch(url, {
      method: example.request.method,
      headers: example.request.headers,
      body: example.request.body,
    });
    if (i < example.repeat - 1) await response.arrayBuffer();
  }
  if (!response) return ['no request sent'];
  const where = `${example.file} line ${example.line} (${example.section})`;
  const problems: string[] = [];
  if (response.status !== example.response.status)
    problems.push(`${where}: status ${response.status}, README shows ${example.response.status}`);
  for (const [name, shown] of Object.entries(example.response.headers)) {
    const actual = response.headers.get(name);
    problems.push(...differences(shown, actual, `${where} header ${name}`));
  }
  const text = await response.text();
  const body: unknown = text === '' ? undefined : JSON.parse(text);
  problems.push(...differences(example.response.body, body, `${where} body`));
  return problems;
}
