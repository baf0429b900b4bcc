import { Kind } from 'graphql';
import type { ConstArgumentNode, ConstDirectiveNode, ConstValueNode } from 'graphql';
import type { DirectiveHolder } from './directive-reader.js';

/** A schema element built in code: a type, field, argument, input field or directive. */
export interface CodeFirstElement {
  readonly extensions?: Readonly<Record<string, unknown>> | null | undefined;
}

/**
 * The directives a code-first schema keeps in an element's `extensions.directives`, as AST nodes,
 * so that they are read exactly as directives written in SDL (their arguments coerced and checked
 * against the directive's definition). The two shapes graphql-tools' `getDirectivesInExtensions`
 * reads, which Pothos (`@pothos/plugin-directives`), Nexus and graphql-tools' own schemas write:
 *
 * - an object of directive name → arguments, or → a list of arguments for a repeated directive:
 *   `{ cost: { weight: 5 }, listSize: { slicingArguments: ['first'] } }`;
 * - a list of `{ name, args }`: `[{ name: 'cost', args: { weight: 5 } }]`.
 *
 * A value that is no JSON-like value (a function, a symbol, a non-finite number) is written as a
 * string naming it, so that the directive's own argument check refuses it with its coordinate.
 * Undefined when the element has no such directives.
 */
export function extensionDirectives(element: CodeFirstElement | null | undefined): DirectiveHolder | undefined {
  const written = element?.extensions?.directives;
  if (written === null || written === undefined || typeof written !== 'object') return undefined;
  const directives: ConstDirectiveNode[] = [];
  if (Array.isArray(written)) {
    for (const entry of written as readonly unknown[]) {
      if (entry === null || typeof entry !== 'object') continue;
      const { name, args } = entry as { readonly name?: unknown; readonly args?: unknown };
      if (typeof name === 'string') directives.push(directiveNode(name, args));
    }
  } else {
    for (const [name, args] of Object.entries(written as Readonly<Record<string, unknown>>)) {
      if (Array.isArray(args))
        for (const each of args as readonly unknown[]) directives.push(directiveNode(name, each));
      else directives.push(directiveNode(name, args));
    }
  }
  return directives.length === 0 ? undefined : { directives };
}

function directiveNode(name: string, args: unknown): ConstDirectiveNode {
  const values = args !== null && typeof args === 'object' ? Object.entries(args as Record<string, unknown>) : [];
  const argumentNodes: ConstArgumentNode[] = values
    .filter(([, value]) => value !== undefined)
    .map(([argName, value]) => ({
      kind: Kind.ARGUMENT,
      name: { kind: Kind.NAME, value: argName },
      value: valueNode(value),
    }));
  return { kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: name }, arguments: argumentNodes };
}

/** A JavaScript value as the literal that writes it (an integer as an Int, a list as a list, …). */
function valueNode(value: unknown): ConstValueNode {
  if (value === null) return { kind: Kind.NULL };
  switch (typeof value) {
    case 'boolean':
      return { kind: Kind.BOOLEAN, value };
    case 'string':
      return { kind: Kind.STRING, value };
    case 'number':
      if (Number.isInteger(value)) return { kind: Kind.INT, value: String(value) };
      if (Number.isFinite(value)) return { kind: Kind.FLOAT, value: String(value) };
      return { kind: Kind.STRING, value: String(value) };
    case 'object':
      if (Array.isArray(value)) return { kind: Kind.LIST, values: value.map(valueNode) };
      return {
        kind: Kind.OBJECT,
        fields: Object.entries(value as Record<string, unknown>)
          .filter(([, field]) => field !== undefined)
          .map(([fieldName, field]) => ({
            kind: Kind.OBJECT_FIELD,
            name: { kind: Kind.NAME, value: fieldName },
            value: valueNode(field),
          })),
      };
    default:
      return { kind: Kind.STRING, value: `(${typeof value})` };
  }
}
