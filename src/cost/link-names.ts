import {
  DirectiveLocation,
  GraphQLDirective,
  GraphQLList,
  GraphQLScalarType,
  GraphQLString,
  getArgumentValues,
  print,
  valueFromASTUntyped,
} from 'graphql';
import type { ConstDirectiveNode, GraphQLSchema } from 'graphql';

/** The names a schema gives `@cost` and `@listSize`, and the `@link` they come from. */
export interface CostDirectiveNames {
  /** Local name of `@cost`, without the `@`. */
  readonly cost: string;
  /** Local name of `@listSize`, without the `@`. */
  readonly listSize: string;
  /** The `@link` that named them, as written in the schema; undefined for the plain IBM names. */
  readonly link: string | undefined;
  /** Whether the link names `@cost` explicitly, so that the schema must define it. */
  readonly costRequired: boolean;
  /** Whether the link names `@listSize` explicitly, so that the schema must define it. */
  readonly listSizeRequired: boolean;
}

/** The IBM cost spec's own names, used by a schema that links neither spec. */
export const PLAIN_COST_NAMES: CostDirectiveNames = {
  cost: 'cost',
  listSize: 'listSize',
  link: undefined,
  costRequired: false,
  listSizeRequired: false,
};

const LINK_SPEC = 'https://specs.apollo.dev/link';
const COST_SPEC = 'https://specs.apollo.dev/cost';
const FEDERATION_SPEC = 'https://specs.apollo.dev/federation';
/** The first Federation version whose spec defines `@cost` and `@listSize`. */
const FEDERATION_WITH_COST = { major: 2, minor: 9 };

/** One `@link` of the schema, read. */
interface Link {
  readonly node: ConstDirectiveNode;
  /** The spec's URL without its version, e.g. `https://specs.apollo.dev/cost`. */
  readonly identity: string;
  /** The spec's name (the last path segment that is not a version), e.g. `cost`. */
  readonly name: string;
  readonly version: { readonly major: number; readonly minor: number } | undefined;
  /** Prefix of the spec's elements that are not imported: `as:`, else the spec's name. */
  readonly namespace: string;
  /** Imported directive → its local name, both without `@`. */
  readonly imports: ReadonlyMap<string, string>;
}

/** `link__Import`: `"@cost"` or `{ name: "@cost", as: "@myCost" }`, read as written. */
const ImportScalar = new GraphQLScalarType({
  name: 'link__Import',
  parseValue: (value) => value,
  parseLiteral: (ast) => valueFromASTUntyped(ast),
});

const linkReader = new GraphQLDirective({
  name: 'link',
  locations: [DirectiveLocation.SCHEMA],
  args: { url: { type: GraphQLString }, as: { type: GraphQLString }, import: { type: new GraphQLList(ImportScalar) } },
});

/**
 * The names under which the schema spells `@cost` and `@listSize`, resolved through its `@link`
 * directives (the "Core Schemas" `@link` spec, https://specs.apollo.dev/link/v1.0: an imported
 * element keeps its name or takes its `as:`; an element not imported is `@namespace__element`,
 * except the element named like its spec, which is `@namespace`; the namespace is the link's
 * `as:`, else the spec's name). Read from the schema's own AST (`astNode` and `extensionASTNodes`).
 *
 * - A link to Apollo's cost spec (https://specs.apollo.dev/cost/v0.1) names both: unimported they
 *   are `@cost` and `@cost__listSize`.
 * - Else a link to Apollo Federation 2.9 or later (whose spec includes the cost spec's directives)
 *   names both: imported, or `@federation__cost` / `@federation__listSize`.
 * - Else the plain IBM names `@cost` / `@listSize`, as the IBM cost spec writes them.
 */
export function costDirectiveNames(schema: GraphQLSchema): CostDirectiveNames {
  const links = linksOf(schema);
  const cost = links.find((link) => link.identity === COST_SPEC);
  if (cost !== undefined) {
    return {
      cost: localName(cost, 'cost'),
      listSize: localName(cost, 'listSize'),
      link: print(cost.node),
      costRequired: true,
      listSizeRequired: true,
    };
  }
  const federation = links.find((link) => link.identity === FEDERATION_SPEC && atLeast(link, FEDERATION_WITH_COST));
  if (federation !== undefined) {
    return {
      cost: localName(federation, 'cost'),
      listSize: localName(federation, 'listSize'),
      link: print(federation.node),
      costRequired: federation.imports.has('cost'),
      listSizeRequired: federation.imports.has('listSize'),
    };
  }
  return PLAIN_COST_NAMES;
}

function localName(link: Link, element: string): string {
  return link.imports.get(element) ?? (element === link.name ? link.namespace : `${link.namespace}__${element}`);
}

function atLeast(link: Link, version: { major: number; minor: number }): boolean {
  const own = link.version;
  return (
    own !== undefined && (own.major > version.major || (own.major === version.major && own.minor >= version.minor))
  );
}

/** The schema's `@link`s. The link directive is itself named by the link to the link spec (`@link` by default). */
function linksOf(schema: GraphQLSchema): Link[] {
  const applications = [schema.astNode, ...schema.extensionASTNodes].flatMap((node) => node?.directives ?? []);
  const bootstrap = applications.find((node) => specOf(urlArgument(node))?.identity === LINK_SPEC);
  const linkName = bootstrap?.name.value ?? 'link';
  const links: Link[] = [];
  for (const node of applications) {
    if (node.name.value !== linkName) continue;
    let values: Record<string, unknown>;
    try {
      values = getArgumentValues(linkReader, node);
    } catch {
      continue; // not a link this engine can read; the schema's own validation speaks for it
    }
    const spec = typeof values.url === 'string' ? specOf(values.url) : undefined;
    if (spec === undefined) continue;
    const namespace = typeof values.as === 'string' ? values.as : spec.name;
    links.push({ node, ...spec, namespace, imports: importsOf(values.import) });
  }
  return links;
}

function urlArgument(node: ConstDirectiveNode): string | undefined {
  const url = node.arguments?.find((argument) => argument.name.value === 'url')?.value;
  return url?.kind === 'StringValue' ? url.value : undefined;
}

/** Identity, name and version of a spec URL such as `https://specs.apollo.dev/federation/v2.9`. */
function specOf(url: string | undefined): Pick<Link, 'identity' | 'name' | 'version'> | undefined {
  if (url === undefined || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const versionMatch = /^v(\d+)\.(\d+)$/.exec(segments.at(-1) ?? '');
  if (versionMatch !== null) segments.pop();
  const name = segments.at(-1);
  if (name === undefined) return undefined;
  return {
    identity: `${parsed.origin}/${segments.join('/')}`,
    name,
    version: versionMatch === null ? undefined : { major: Number(versionMatch[1]), minor: Number(versionMatch[2]) },
  };
}

/** Imported directives (`"@x"`, `{ name: "@x", as: "@y" }`) → local names, without `@`; types are skipped. */
function importsOf(value: unknown): Map<string, string> {
  const imports = new Map<string, string>();
  for (const item of Array.isArray(value) ? (value as unknown[]) : []) {
    const entry = item !== null && typeof item === 'object' ? (item as { name?: unknown; as?: unknown }) : undefined;
    const name = entry === undefined ? item : entry.name;
    const as = entry?.as ?? name;
    if (typeof name !== 'string' || typeof as !== 'string' || !name.startsWith('@') || !as.startsWith('@')) continue;
    imports.set(name.slice(1), as.slice(1));
  }
  return imports;
}
