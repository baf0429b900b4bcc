import { Kind, buildASTSchema, valueFromASTUntyped } from 'graphql';
import type {
  ConstDirectiveNode,
  DefinitionNode,
  DirectiveNode,
  DocumentNode,
  EnumValueDefinitionNode,
  FieldDefinitionNode,
  GraphQLSchema,
  InputValueDefinitionNode,
  NamedTypeNode,
  TypeNode,
} from 'graphql';

/** The directives an API schema keeps applied: those that clients see through introspection. */
const KEPT_DIRECTIVES = new Set(['deprecated', 'specifiedBy', 'oneOf']);

/** The spec that makes an SDL document a Federation supergraph: Apollo's join spec. */
const JOIN_SPEC = 'https://specs.apollo.dev/join/';

/** The names one `@link` (or Federation 1's `@core`) of a supergraph owns. */
interface Feature {
  readonly url: string;
  /** `as:`, else the spec's name: its elements are `@namespace`, `@namespace__x` and `namespace__X`. */
  readonly namespace: string;
  /** Local names of imported elements, without `@`. */
  readonly imports: ReadonlySet<string>;
}

/**
 * The `@link`s (Federation 1: `@core`s) on the document's schema definition and extensions, read
 * as the "Core Schemas" link spec does (https://specs.apollo.dev/link/v1.0).
 */
function featuresOf(document: DocumentNode): Feature[] {
  const features: Feature[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.SCHEMA_DEFINITION && definition.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const directive of definition.directives ?? []) {
      if (directive.name.value !== 'link' && directive.name.value !== 'core') continue;
      const args = argumentsOf(directive);
      const url = typeof args.url === 'string' ? args.url : typeof args.feature === 'string' ? args.feature : undefined;
      if (url === undefined || !URL.canParse(url)) continue;
      const segments = new URL(url).pathname.split('/').filter((segment) => segment !== '');
      if (/^v\d+\.\d+$/.test(segments.at(-1) ?? '')) segments.pop();
      const namespace = typeof args.as === 'string' ? args.as : (segments.at(-1) ?? '');
      const imports = new Set<string>();
      for (const item of Array.isArray(args.import) ? (args.import as unknown[]) : []) {
        const entry =
          item !== null && typeof item === 'object' ? (item as { name?: unknown; as?: unknown }) : undefined;
        const local = entry === undefined ? item : (entry.as ?? entry.name);
        if (typeof local === 'string') imports.add(local.replace(/^@/, ''));
      }
      features.push({ url, namespace, imports });
    }
  }
  return features;
}

function argumentsOf(directive: ConstDirectiveNode): Record<string, unknown> {
  return Object.fromEntries((directive.arguments ?? []).map((arg) => [arg.name.value, valueFromASTUntyped(arg.value)]));
}

/** Whether an SDL document is a Federation supergraph (it links Apollo's join spec). */
export function isSupergraph(document: DocumentNode): boolean {
  return featuresOf(document).some((feature) => feature.url.startsWith(JOIN_SPEC));
}

/**
 * The API schema of a Federation supergraph, the schema a gateway serves and gives its plugins: the
 * supergraph without the elements of the specs it links (`@link`, `@join__*`, `@inaccessible`,
 * `@tag`, `@cost`, `link__Purpose`, …), without what `@inaccessible` hides, and with no directive
 * applied but `@deprecated`, `@specifiedBy` and `@oneOf`. Built with graphql-js alone, so that
 * pricing a supergraph needs no Federation package; its nodes keep the supergraph's locations.
 * The supergraph is composition's output, so it is not validated again (`assumeValidSDL`).
 */
export function apiSchema(supergraph: DocumentNode): GraphQLSchema {
  const features = featuresOf(supergraph);
  const owned = (name: string) =>
    features.some(
      (feature) => name === feature.namespace || name.startsWith(`${feature.namespace}__`) || feature.imports.has(name),
    );
  const inaccessible = features.find((feature) => feature.url.startsWith('https://specs.apollo.dev/inaccessible/'));
  const hidden = (node: { readonly directives?: readonly DirectiveNode[] | undefined }) =>
    inaccessible !== undefined && (node.directives ?? []).some((d) => d.name.value === inaccessible.namespace);
  const removed = new Set<string>();
  for (const definition of supergraph.definitions) {
    if ('name' in definition && definition.name !== undefined && (owned(definition.name.value) || hidden(definition))) {
      removed.add(definition.name.value);
    }
  }
  const visible = (type: TypeNode): boolean => !removed.has(namedTypeOf(type));
  const kept = (directives: readonly ConstDirectiveNode[] | undefined) =>
    (directives ?? []).filter((directive) => KEPT_DIRECTIVES.has(directive.name.value));
  const inputValues = (values: readonly InputValueDefinitionNode[] | undefined) =>
    values
      ?.filter((value) => !hidden(value) && visible(value.type))
      .map((value) => ({ ...value, directives: kept(value.directives) }));
  const fields = (list: readonly FieldDefinitionNode[] | undefined) =>
    list
      ?.filter((field) => !hidden(field) && visible(field.type))
      .map((field) => ({ ...field, arguments: inputValues(field.arguments), directives: kept(field.directives) }));
  const enumValues = (values: readonly EnumValueDefinitionNode[] | undefined) =>
    values?.filter((value) => !hidden(value)).map((value) => ({ ...value, directives: kept(value.directives) }));
  const members = (types: readonly NamedTypeNode[] | undefined) =>
    types?.filter((type) => !removed.has(type.name.value));

  const definitions: DefinitionNode[] = [];
  for (const definition of supergraph.definitions) {
    switch (definition.kind) {
      case Kind.SCHEMA_DEFINITION:
      case Kind.SCHEMA_EXTENSION:
        definitions.push({ ...definition, directives: [] });
        break;
      case Kind.DIRECTIVE_DEFINITION:
        if (!owned(definition.name.value))
          definitions.push({ ...definition, arguments: inputValues(definition.arguments) });
        break;
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.OBJECT_TYPE_EXTENSION:
      case Kind.INTERFACE_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_EXTENSION:
        if (removed.has(definition.name.value)) break;
        definitions.push({
          ...definition,
          directives: kept(definition.directives),
          interfaces: members(definition.interfaces),
          fields: fields(definition.fields),
        });
        break;
      case Kind.UNION_TYPE_DEFINITION:
      case Kind.UNION_TYPE_EXTENSION:
        if (removed.has(definition.name.value)) break;
        definitions.push({ ...definition, directives: kept(definition.directives), types: members(definition.types) });
        break;
      case Kind.ENUM_TYPE_DEFINITION:
      case Kind.ENUM_TYPE_EXTENSION:
        if (removed.has(definition.name.value)) break;
        definitions.push({
          ...definition,
          directives: kept(definition.directives),
          values: enumValues(definition.values),
        });
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      case Kind.INPUT_OBJECT_TYPE_EXTENSION:
        if (removed.has(definition.name.value)) break;
        definitions.push({
          ...definition,
          directives: kept(definition.directives),
          fields: inputValues(definition.fields),
        });
        break;
      case Kind.SCALAR_TYPE_DEFINITION:
      case Kind.SCALAR_TYPE_EXTENSION:
        if (!removed.has(definition.name.value))
          definitions.push({ ...definition, directives: kept(definition.directives) });
        break;
      default:
        break;
    }
  }
  return buildASTSchema({ kind: Kind.DOCUMENT, definitions }, { assumeValidSDL: true });
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}
