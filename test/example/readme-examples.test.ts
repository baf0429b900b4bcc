import { describe, expect, it } from 'vitest';
import { differences, parseCurl, readmeExamples } from './readme-examples.js';
import { parseXml } from './xml.js';

describe('reading curl examples out of a README', () => {
  const readme = [
    '## Quick start',
    '<!-- example: repeat=2 -->',
    '```sh',
    'curl -i http://localhost:4000/ \\',
    "  -H 'Authorization: Bearer k' \\",
    '  -d \'{"query":"{ a }"}\'',
    '```',
    '',
    '```http',
    'HTTP/1.1 429 Too Many Requests',
    'retry-after: 8',
    '',
    '{"errors": [{"message": "Retry in 8 s."}]}',
    '```',
  ].join('\n');

  it('finds the request, the repeat count and the shown response', () => {
    const [example] = readmeExamples(readme);
    expect(example).toMatchObject({
      section: '## Quick start',
      repeat: 2,
      request: {
        method: 'POST',
        url: 'http://localhost:4000/',
        headers: { authorization: 'Bearer k' },
        body: '{"query":"{ a }"}',
      },
      response: { status: 429, headers: { 'retry-after': '8' }, body: { errors: [{ message: 'Retry in 8 s.' }] } },
    });
  });

  it('refuses a curl example without a response right after it', () => {
    expect(() => readmeExamples('```sh\ncurl http://x/\n```\n\nsome text\n')).toThrow(/must be followed directly/);
  });

  it('sends the data of -G in the query string of a GET, --data-urlencode encoded', () => {
    const request = parseCurl("curl -i -G http://x/graphql -H 'a: b' --data-urlencode 'query={ a }' -d 'b=1'");
    expect(request).toEqual({
      method: 'GET',
      url: 'http://x/graphql?b=1&query=%7B%20a%20%7D',
      headers: { a: 'b' },
      body: undefined,
    });
  });

  it('refuses curl options it would silently ignore', () => {
    expect(() => parseCurl('curl --compressed http://x/')).toThrow(/--compressed/);
  });
});

describe('comparing a shown response with a real one', () => {
  it('allows ±1 on numbers, also inside strings', () => {
    expect(differences({ r: 81, m: 'Retry in 8 s.' }, { r: 80, m: 'Retry in 7 s.' })).toEqual([]);
  });

  it('reports a number that moved by more than 1, a changed word, a missing or extra key', () => {
    expect(differences({ r: 81 }, { r: 79 })).toHaveLength(1);
    expect(differences({ m: 'Retry in 8 s.' }, { m: 'Wait 8 s.' })).toHaveLength(1);
    expect(differences({ a: 1, b: 2 }, { a: 1 })).toHaveLength(1);
    expect(differences({ a: 1 }, { a: 1, c: 3 })).toHaveLength(1);
    expect(differences([1, 2], [1])).toHaveLength(1);
  });
});

describe('the XML well-formedness check', () => {
  it('accepts a small SVG and rejects what is not well-formed', () => {
    expect(parseXml('<svg a="1"><g><path d="M0 0"/></g><text>a &amp; b</text></svg>').name).toBe('svg');
    for (const bad of [
      '<svg><g></svg>',
      '<svg a="1" a="2"/>',
      '<svg>&nbsp;</svg>',
      '<svg/><svg/>',
      '<svg>',
      'text<svg/>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow(SyntaxError);
    }
  });
});
