/** This package's version, as in package.json (test/package/version.test.ts keeps the two equal). */
export const VERSION = '0.1.0';
