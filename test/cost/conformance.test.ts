import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createCostAnalyzer } from '../../src/cost/analyzer.js';

interface Fixture {
  id: string;
  sdl: string;
  operation: string;
  operationName: string | null;
  variables: Record<string, unknown> | null;
  defaultListSize: number | 'Infinity';
  expected: { typeCost: number; fieldCost: number };
  notes?: string;
}

const root = join(import.meta.dirname, '../fixtures/conformance');
const families = ['article', 'rust-unit'];
const fixtures = families.flatMap((family) =>
  readdirSync(join(root, family))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ family, fixture: JSON.parse(readFileSync(join(root, family, file), 'utf8')) as Fixture })),
);

describe('IBM cost conformance fixtures', () => {
  it('holds all 41 fixtures', () => {
    expect(fixtures).toHaveLength(41);
  });

  for (const { family, fixture } of fixtures) {
    it(`${family}/${fixture.id}`, () => {
      const schema = buildSchema(fixture.sdl);
      const document = parse(fixture.operation);
      expect(validate(schema, document)).toEqual([]);
      const analyzer = createCostAnalyzer(schema, {
        defaultListSize: fixture.defaultListSize === 'Infinity' ? Infinity : fixture.defaultListSize,
      });
      const { typeCost, fieldCost } = analyzer.estimate({
        document,
        operationName: fixture.operationName,
        variables: fixture.variables,
      });
      expect({ typeCost, fieldCost }).toEqual(fixture.expected);
    });
  }
});
