import fc from 'fast-check';
import { NULLABLE, THROWABLE, type Behaviour } from './library.js';

/**
 * Generated requests for the harness schema (library.ts): operations built from small pieces
 * (fields with literal or variable arguments, aliases that collide with `__typename` and with other
 * fields, duplicate fields, inline fragments and a named fragment, `@skip`/`@include` driven by
 * variables), variables whose names and values are hostile on purpose (`__proto__`, `constructor`;
 * negative, huge, fractional, strings where numbers belong, null, input objects with `__proto__`
 * keys), and resolver behaviour (lists shorter and longer than asked, errors, nulls, late answers).
 * Some lists are asked for with `@stream` and some fragments with `@defer` (incremental delivery:
 * GraphQL Yoga runs them with `useDeferStream`; Apollo Server on graphql 16 refuses them).
 */

/** A variable an operation may declare: its name, GraphQL type and default. */
export interface VariableSlot {
  readonly name: string;
  readonly type: 'Int' | 'Int!' | 'Boolean' | 'Page';
  /** The default as GraphQL source, when it has one. */
  readonly defaultValue?: string;
}

/** Variable slots; names include the keys a plain object copy mishandles. */
const SLOTS: readonly VariableSlot[] = [
  { name: 'n', type: 'Int!' },
  { name: '__proto__', type: 'Int!' },
  { name: 'constructor', type: 'Int', defaultValue: '2' },
  { name: 'm', type: 'Int' },
  { name: 'toString', type: 'Int', defaultValue: '-1' },
  { name: 'd', type: 'Boolean', defaultValue: 'true' },
  { name: 'hasOwnProperty', type: 'Boolean', defaultValue: 'false' },
  { name: 'p', type: 'Page' },
  { name: 'valueOf', type: 'Page', defaultValue: '{ size: 4 }' },
];

type Selection =
  | { readonly kind: 'field'; readonly text: string }
  | { readonly kind: 'inline'; readonly on: string | undefined; readonly directive: string; readonly body: Selection[] }
  | { readonly kind: 'spread'; readonly directive: string };

/** An operation as text, and the variable slots it uses. */
export interface GeneratedOperation {
  readonly text: string;
  readonly root: 'Query' | 'Mutation';
  readonly slots: readonly VariableSlot[];
}

const intLiteralArb = fc.constantFrom('-1', '-4000', '0', '1', '2', '3', '7', '40', '4000', '10001', '2147483647');
/** An argument of type Int: a literal, or a variable (of type Int or Int!). */
const intArgumentArb = fc.oneof(
  { weight: 3, arbitrary: intLiteralArb },
  { weight: 2, arbitrary: fc.constantFrom('$n', '$__proto__', '$constructor', '$m', '$toString') },
);
/** An argument of type Int!: a literal, or a variable that is non-null or has a default. */
const requiredIntArgumentArb = fc.oneof(
  { weight: 3, arbitrary: intLiteralArb },
  { weight: 2, arbitrary: fc.constantFrom('$n', '$__proto__', '$constructor', '$toString') },
);
const pageArgumentArb = fc.oneof(
  intArgumentArb.map((size) => `{ size: ${size} }`),
  fc.constant('{ offset: 1 }'),
  fc.constantFrom('$p', '$valueOf'),
);
const conditionArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '@skip(if: $d)',
      '@include(if: $d)',
      '@include(if: $hasOwnProperty)',
      '@skip(if: false)',
    ),
  },
);
/** Directives of a fragment: those of a field, and `@defer` (with or without a condition). */
const fragmentDirectiveArb = fc.oneof(
  { weight: 4, arbitrary: conditionArb },
  { weight: 1, arbitrary: fc.constantFrom('@defer', '@defer(if: $d)') },
);
/** What a list field may carry besides its condition: `@stream` now and then. */
const streamArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('@stream(initialCount: 1)', '@stream(initialCount: 0)') },
);

/** Response keys: none, plain aliases, and aliases that collide with `__typename` or with other fields. */
const aliasArb = fc.oneof(
  { weight: 7, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constantFrom('a: ', 'b: ', 't: ') },
  { weight: 1, arbitrary: fc.constantFrom('__typename: ', 'title: ', 'id: ', 'name: ') },
);

function field(
  name: string,
  args: fc.Arbitrary<string>,
  body?: fc.Arbitrary<Selection[]>,
  list = false,
): fc.Arbitrary<Selection> {
  return fc
    .record({
      alias: aliasArb,
      args,
      condition: conditionArb,
      stream: list ? streamArb : fc.constant(''),
      body: body ?? fc.constant(undefined),
    })
    .map(({ alias, args: written, condition, stream, body: inner }) => {
      const directives = [condition, stream].filter((directive) => directive !== '').join(' ');
      return {
        kind: 'field' as const,
        text: `${alias}${name}${written}${directives === '' ? '' : ` ${directives}`}${inner === undefined ? '' : ` { ${print(inner)} }`}`,
      };
    });
}

const none = fc.constant('');
const optional = (arb: fc.Arbitrary<string>, name: string) =>
  fc.oneof(
    none,
    arb.map((value) => `(${name}: ${value})`),
  );

/** Selections on a type, `depth` levels of composite fields at most. */
function selectionsOn(type: string, depth: number): fc.Arbitrary<Selection[]> {
  const sub = (inner: string) => (depth > 0 ? selectionsOn(inner, depth - 1) : leaves(inner));
  const choices: fc.Arbitrary<Selection>[] = [...leafFields(type)];
  if (depth > 0) {
    switch (type) {
      case 'Book':
        choices.push(
          field('similar', optional(intArgumentArb, 'first'), sub('Book'), true),
          field('author', none, sub('Author')),
          field('review', fc.constantFrom('(id: "r1")', '(id: "nope")'), leaves('Review')),
        );
        break;
      case 'Author':
        choices.push(field('books', optional(pageArgumentArb, 'page'), sub('Book'), true));
        break;
      case 'Query':
        choices.push(
          field(
            'books',
            requiredIntArgumentArb.map((value) => `(first: ${value})`),
            sub('Book'),
            true,
          ),
          field('book', fc.constantFrom('(id: "b1")', '(id: "b2")', '(id: "nope")'), sub('Book')),
          field(
            'shelf',
            optional(intArgumentArb, 'first'),
            fc.array(field('edges', none, selectionsOnEdge(depth - 1)), { minLength: 1, maxLength: 2 }),
          ),
          field('search', optional(intArgumentArb, 'first'), abstractSelections(depth - 1), true),
          field('node', fc.constantFrom('(id: "b1")', '(id: "v1")', '(id: "x")'), abstractSelections(depth - 1)),
          field('everything', none, sub('Book')),
          field(
            'rateLimit',
            fc.constantFrom('', '(dryRun: true)', '(dryRun: false)', '(dryRun: $d)', '(dryRun: $hasOwnProperty)'),
            fc.constant([{ kind: 'field', text: 'cost remaining' }]),
          ),
        );
        break;
      case 'Mutation':
        choices.push(
          field(
            'addBooks',
            requiredIntArgumentArb.map((value) => `(count: ${value})`),
            sub('Book'),
          ),
          field('failBook', fc.constant('(id: "x")'), leaves('Book')),
        );
        break;
    }
  }
  if (type === 'Book') choices.push(spreadArb);
  return fc.array(fc.oneof(...choices), { minLength: 1, maxLength: 4 }).map(mergeable);
}

/**
 * Drops a field whose response key an earlier field of the selection already has with other
 * arguments (a validation error, so nothing would run); exact duplicates stay, as they merge.
 */
function mergeable(selections: Selection[]): Selection[] {
  const seen = new Map<string, string>();
  return selections.filter((selection) => {
    if (selection.kind !== 'field') return true;
    const key = /^\s*(\w+)/.exec(selection.text)?.[1] ?? '';
    const earlier = seen.get(key);
    if (earlier === undefined) seen.set(key, selection.text);
    return earlier === undefined || earlier === selection.text;
  });
}

function selectionsOnEdge(depth: number): fc.Arbitrary<Selection[]> {
  return fc.array(
    fc.oneof(field('cursor', none), field('node', none, depth > 0 ? selectionsOn('Book', depth - 1) : leaves('Book'))),
    { minLength: 1, maxLength: 2 },
  );
}

/** Selections under `Result` or `Node`: inline fragments per member, `__typename` and aliased keys. */
function abstractSelections(depth: number): fc.Arbitrary<Selection[]> {
  const member = (on: string) =>
    fc
      .record({ directive: fragmentDirectiveArb, body: depth > 0 ? selectionsOn(on, depth - 1) : leaves(on) })
      .map(({ directive, body }) => ({ kind: 'inline' as const, on, directive, body }));
  return fc.array(fc.oneof(member('Book'), member('Vendor'), field('__typename', none)), {
    minLength: 1,
    maxLength: 3,
  });
}

function leafFields(type: string): fc.Arbitrary<Selection>[] {
  switch (type) {
    case 'Book':
      return [
        field('id', none),
        field('title', none),
        field('__typename', none),
        fc.constant({ kind: 'field' as const, text: 't: __typename' }),
        field(
          'tags',
          requiredIntArgumentArb.map((value) => `(first: ${value})`),
        ),
        field('genres', optional(intArgumentArb, 'first')),
        field('score', fc.constantFrom('', '(boost: 1)', '(boost: null)', '(boost: $n)')),
      ];
    case 'Author':
      return [field('id', none), field('name', none)];
    case 'Review':
      return [field('id', none), field('stars', none)];
    case 'Vendor':
      return [
        field('id', none),
        field('name', none),
        field('audit', none),
        field('__typename', none),
        // A vendor's name under the key another member uses for its `__typename` (one is named "Book").
        fc.constantFrom('t: name', '__typename: name').map((text) => ({ kind: 'field' as const, text })),
      ];
    case 'Query':
      return [
        field('__typename', none),
        field(
          'grid',
          requiredIntArgumentArb.map((value) => `(size: ${value})`),
        ),
      ];
    default:
      return [field('__typename', none)];
  }
}

function leaves(type: string): fc.Arbitrary<Selection[]> {
  return fc.array(fc.oneof(...leafFields(type)), { minLength: 1, maxLength: 3 });
}

const spreadArb: fc.Arbitrary<Selection> = fragmentDirectiveArb.map((directive) => ({ kind: 'spread', directive }));

function print(selections: readonly Selection[]): string {
  return selections
    .map((selection) => {
      if (selection.kind === 'field') return selection.text;
      if (selection.kind === 'spread')
        return `...BookParts${selection.directive === '' ? '' : ` ${selection.directive}`}`;
      const on = selection.on === undefined ? '' : ` on ${selection.on}`;
      return `...${on}${selection.directive === '' ? '' : ` ${selection.directive}`} { ${print(selection.body)} }`;
    })
    .join(' ');
}

/** A query or mutation, with the named fragment it may spread and the variables it uses. */
export const operationArb: fc.Arbitrary<GeneratedOperation> = fc
  .record({
    root: fc.constantFrom<'Query' | 'Mutation'>('Query', 'Query', 'Query', 'Mutation'),
    fragment: leaves('Book'),
    name: fc.constantFrom('', 'Q', 'Probe'),
  })
  .chain(({ root, fragment, name }) =>
    selectionsOn(root, 3).map((selections) => {
      const body = print(selections);
      const fragmentText = print(fragment);
      const spread = /\.\.\.BookParts/.test(body);
      const used = SLOTS.filter((slot) =>
        new RegExp(`\\$${slot.name}\\b`).test(`${body} ${spread ? fragmentText : ''}`),
      );
      const declarations = used.map(
        (slot) => `$${slot.name}: ${slot.type}${slot.defaultValue === undefined ? '' : ` = ${slot.defaultValue}`}`,
      );
      const head = `${root === 'Query' ? 'query' : 'mutation'}${name === '' ? '' : ` ${name}`}`;
      const variables = declarations.length === 0 ? '' : `(${declarations.join(', ')})`;
      const fragmentDefinition = spread ? ` fragment BookParts on Book { ${fragmentText} }` : '';
      return { text: `${head}${variables} { ${body} }${fragmentDefinition}`, root, slots: used };
    }),
  );

const hostileIntArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -5, max: 8 }) },
  { weight: 2, arbitrary: fc.constantFrom(4000, 10_001, 2_147_483_647, -4000, 1.5, Number.MAX_SAFE_INTEGER) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('5', null, true, {}, []) },
);
const hostilePageArb: fc.Arbitrary<unknown> = fc.oneof(
  hostileIntArb.map((size) => ({ size })),
  fc.constant({}),
  hostileIntArb.map((size) => JSON.parse(`{"__proto__": {"size": 4000}, "size": ${JSON.stringify(size)}}`) as unknown),
  fc.constant(null),
);

/** A value for one variable, or undefined to leave it out (its default then applies). */
function slotValueArb(slot: VariableSlot): fc.Arbitrary<unknown> {
  return fc.option(
    slot.type === 'Page'
      ? hostilePageArb
      : slot.type === 'Boolean'
        ? fc.oneof(
            { weight: 9, arbitrary: fc.boolean() },
            { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'yes') },
          )
        : hostileIntArb,
    { nil: undefined, freq: slot.type.endsWith('!') ? 12 : 4 },
  );
}

/**
 * Values for the variables an operation uses (some left out, so defaults apply), plus junk the
 * operation never declares, under hostile names, as JSON would deliver them (own `__proto__` keys).
 */
export function hostileVariablesArb(slots: readonly VariableSlot[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = slots.map(slotValueArb);
  const junk = fc.option(fc.constantFrom('__proto__', 'constructor', 'zz', 'prototype'), { nil: undefined, freq: 2 });
  return fc.tuple(fc.tuple(...entries), junk, hostileIntArb).map(([values, junkName, junkValue]) => {
    const pairs: string[] = [];
    for (const [index, slot] of slots.entries()) {
      const value = values[index];
      if (value !== undefined) pairs.push(`${JSON.stringify(slot.name)}: ${JSON.stringify(value)}`);
    }
    if (junkName !== undefined && !slots.some((slot) => slot.name === junkName)) {
      pairs.push(`${JSON.stringify(junkName)}: ${JSON.stringify(junkValue)}`);
    }
    // Parsed, not built: JSON.parse makes `__proto__` an own key, as a server's body parser does.
    return JSON.parse(`{${pairs.join(', ')}}`) as Record<string, unknown>;
  });
}

/** How the resolvers behave for one request. */
export const resolverBehaviourArb: fc.Arbitrary<Behaviour> = fc.record({
  delta: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: -2, max: 4 }) }),
  throwAt: fc.subarray(THROWABLE, { maxLength: 3 }),
  throwEvery: fc.integer({ min: 1, max: 3 }),
  nullAt: fc.subarray(NULLABLE, { maxLength: 2 }),
  late: fc.boolean(),
});

/** One generated request: the operation, its variables and how the resolvers behave. */
export interface GeneratedRequest {
  readonly operation: GeneratedOperation;
  readonly variables: Record<string, unknown>;
  readonly behaviour: Behaviour;
}

/**
 * Two requests of one operation with variables generated apart (often alike, sometimes differing
 * only under a hostile key), each with its resolver behaviour: what a cache must tell apart.
 */
export const requestPairArb: fc.Arbitrary<readonly [GeneratedRequest, GeneratedRequest]> = operationArb.chain(
  (operation) =>
    fc
      .record({
        first: hostileVariablesArb(operation.slots),
        second: fc.oneof(hostileVariablesArb(operation.slots), oneValueChangedArb(operation.slots)),
        behaviours: fc.tuple(resolverBehaviourArb, resolverBehaviourArb),
      })
      .map(({ first, second, behaviours }) => [
        { operation, variables: first, behaviour: behaviours[0] },
        {
          operation,
          variables: typeof second === 'function' ? second(first) : second,
          behaviour: behaviours[1],
        },
      ]),
);

/** A change of one variable's value (what a client probing a cache sends next). */
function oneValueChangedArb(
  slots: readonly VariableSlot[],
): fc.Arbitrary<(variables: Record<string, unknown>) => Record<string, unknown>> {
  if (slots.length === 0) return fc.constant((variables) => variables);
  return fc.nat({ max: slots.length - 1 }).chain((index) => {
    const slot = slots[index] as VariableSlot;
    return slotValueArb(slot).map((value) => (variables: Record<string, unknown>) => {
      // Rebuilt through JSON so that a `__proto__` key stays an own key.
      const pairs = Object.keys(variables)
        .filter((name) => name !== slot.name)
        .map((name) => `${JSON.stringify(name)}: ${JSON.stringify(variables[name])}`);
      if (value !== undefined) pairs.push(`${JSON.stringify(slot.name)}: ${JSON.stringify(value)}`);
      return JSON.parse(`{${pairs.join(', ')}}`) as Record<string, unknown>;
    });
  });
}
