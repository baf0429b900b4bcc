import { readFileSync } from 'node:fs';
import { parseCurl } from '../example/readme-examples.js';
import { installBlock, installBlocks } from '../consumer/readme-install.js';

const readme = installBlocks(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));

/** The schema of the README's "Install in your project" example (its `server.ts` typeDefs). */
export const readmeTypeDefs = (() => {
  const typeDefs = /const typeDefs = `#graphql\n([\s\S]*?)`;/.exec(installBlock(readme, 'server.ts').text)?.[1];
  if (typeDefs === undefined) throw new Error('README: the server.ts block has no `const typeDefs = `#graphql …`;`.');
  return typeDefs;
})();

/** The operation the README's example request sends (priced 18 there). */
export const readmeQuery = (
  JSON.parse(parseCurl(installBlock(readme, 'request').text.trim()).body as string) as { query: string }
).query;
