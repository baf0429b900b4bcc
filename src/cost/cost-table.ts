import {
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  isScalarType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
} from 'graphql';
import type {
  GraphQLArgument,
  GraphQLField,
  GraphQLFieldMap,
  GraphQLInputField,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  SelectionSetNode,
} from 'graphql';
import { CostDirectiveReader, type DirectiveHolder } from './directive-reader.js';
import { CostSchemaError } from './errors.js';
import { extensionDirectives } from './extension-directives.js';
import { entitiesRule, listSizeRule, type ListSizeRule } from './list-size-rule.js';
import { relayListSize, type InferredListSize, type ListSizeInference } from './relay-connections.js';
import { requiredSelection } from './required-selection.js';

/** How a cost model reads the directives. */
export interface TableReading {
  /** Whether every cost directive a `@link` names must be defined as the spec does (Apollo Router tolerates a missing one). */
  readonly requiresLinkedDefinitions: boolean;
  /** Whether fields pay for their `@join__field(requires:)` selections (Apollo Router's formula). */
  readonly readsRequiredSelections: boolean;
}

/** The IBM spec's reading: every linked directive defined, no `@join__field(requires:)`. */
export const IBM_READING: TableReading = { requiresLinkedDefinitions: true, readsRequiredSelections: false };

/** Apollo Router's reading: a linked directive may be undefined, `@join__field(requires:)` is paid for. */
export const APOLLO_READING: TableReading = { requiresLinkedDefinitions: false, readsRequiredSelections: true };

/** Names the tables of one schema that a reading and an inference make, for caches of them. */
export function tableKind(reading: TableReading, inferListSizes: ListSizeInference | undefined): string {
  return `${Number(reading.requiresLinkedDefinitions)}${Number(reading.readsRequiredSelections)}:${inferListSizes ?? ''}`;
}

export type { ListSizeRule } from './list-size-rule.js';

/** What a field costs to resolve, before arguments, and the shape of what it returns. */
export interface FieldCostRule {
  /** `@cost` weight of the field, or the default: 1 for composite return types, 0 for leaves. */
  readonly weight: number;
  /** The field's `@listSize` rules: none, one, or several where the directive is repeatable. */
  readonly listSizes: readonly ListSizeRule[];
  /** The field's own `@cost`, not one inherited from an interface field; undefined without one. */
  readonly ownWeight: number | undefined;
  /**
   * The field's own `@listSize` rules (or `_entities`' rule, or the rule `inferListSizes` gave it),
   * not those inherited from an interface field.
   */
  readonly ownListSizes: readonly ListSizeRule[];
  /** The named type the field returns. */
  readonly namedType: GraphQLNamedType;
  /** How many list levels wrap the named type: 0 for `T`, 1 for `[T!]!`, 2 for `[[T]]`. */
  readonly listDepth: number;
  /** Whether the named type is a scalar or enum (no selection below it). */
  readonly returnsLeaf: boolean;
  /** The named type when it is an object type (so a selection below it needs no type resolution). */
  readonly objectType: GraphQLObjectType | undefined;
  /** How `listSizes` was inferred (`inferListSizes`) where the schema gives the field none; undefined when it was not. */
  readonly inferredListSize: ListSizeInference | undefined;
}

/** A field whose `@listSize` was inferred (`inferListSizes`), with the directive's arguments. */
export interface InferredField {
  /** `Type.field`. */
  readonly coordinate: string;
  readonly field: GraphQLField<unknown, unknown>;
  readonly listSize: InferredListSize;
}

type AnyField = GraphQLField<unknown, unknown>;
type InputValue = GraphQLArgument | GraphQLInputField;
type SchemaElement = InputValue | AnyField | GraphQLNamedType;

const NO_RULES: readonly ListSizeRule[] = [];

/** What each `inferListSizes` value infers a field's `@listSize` from. */
const INFERENCES: Readonly<Record<ListSizeInference, (field: AnyField) => InferredListSize | undefined>> = {
  relay: relayListSize,
};

/**
 * The schema's cost directives, read once: type weights, field weights, argument and input-field
 * weights, and `@listSize` rules, with the IBM spec's defaults ("Default weights": 0 for scalars,
 * enums and their fields, arguments and input fields; 1 for object types, composite fields and
 * input-object values). An object field without its own `@cost`/`@listSize` inherits those of the
 * interface fields it implements (the largest weight). A federated subgraph's `Query._entities`
 * without a `@listSize` is sized by its representations (see `entitiesRule`).
 *
 * The directives are read from `annotated`, by schema coordinate: the schema itself by default, or
 * another schema describing the same types, such as the supergraph of a gateway whose API schema
 * carries no directives. Their names are resolved through `annotated`'s `@link`s (see
 * `costDirectiveNames`).
 *
 * Directives are read from the AST the SDL was built from (definitions and extensions) and, for a
 * schema built in code (Pothos, Nexus, TypeGraphQL, graphql-tools), from each element's
 * `extensions.directives` (see `extensionDirectives`), the same way.
 *
 * With `inferListSizes: 'relay'`, a field without a `@listSize` of its own or inherited that
 * returns a Relay connection is given the rule `relayListSize` describes (listed in
 * `inferredFields`); a written `@listSize` always wins.
 *
 * Under the `'apollo'` cost model the table also keeps what Apollo Router reads: each field's
 * `@join__field(requires:)` selection (see `requiredSelection`); and a directive that a cost
 * `@link` names but the schema does not define is not a problem there (it is then never applied),
 * as in the router.
 *
 * @throws {CostSchemaError} listing every `@cost` weight that is not a number, every `@listSize`
 * that names a missing slicing argument (or one neither Int nor a list) or a sized field that is
 * not a list field below the return type, every repeated `@listSize` the schema does not define
 * repeatable, every cost directive a `@link` names that the schema does not define as the spec
 * does, and every type of `schema` that `annotated` lacks.
 */
export class CostTable {
  readonly schema: GraphQLSchema;
  /** The `@cost` of each type, or (after `typeWeight` first asks) its default; undefined means neither yet. */
  private readonly typeWeights = new Map<GraphQLNamedType, number | undefined>();
  /** The `@cost` written on each type that has one. */
  private readonly declaredTypeWeights = new Map<GraphQLNamedType, number>();
  private readonly fieldRules = new Map<AnyField, FieldCostRule>();
  private readonly inputWeights = new Map<InputValue, number>();
  /** The `@cost` written on each argument and input field that has one (not inherited). */
  private readonly declaredInputWeights = new Map<InputValue, number>();
  private readonly requiredSelections = new Map<AnyField, SelectionSetNode>();
  private readonly objectTypes = new Map<GraphQLNamedType, boolean>();
  /** The fields whose `@listSize` was inferred, in the schema's order. */
  readonly inferredFields: readonly InferredField[];

  constructor(
    schema: GraphQLSchema,
    annotated: GraphQLSchema = schema,
    reading: TableReading = IBM_READING,
    inferListSizes: ListSizeInference | undefined = undefined,
  ) {
    this.schema = schema;
    const problems: string[] = [];
    const reader = new CostDirectiveReader(annotated, problems, {
      requireLinkedDefinitions: reading.requiresLinkedDefinitions,
    });
    // Undefined where there is no `@cost`, as where there is no entry: both fall back alike.
    const explicitWeights = new Map<AnyField, number | undefined>();
    const explicitListSizes = new Map<AnyField, readonly ListSizeRule[]>();
    const explicitArgWeights = new Map<GraphQLArgument, number | undefined>();
    const queryType = schema.getQueryType();

    for (const type of Object.values(schema.getTypeMap())) {
      const source = annotated.getType(type.name);
      if (source === undefined) {
        if (!isSpecifiedScalarType(type)) {
          problems.push(`${type.name}: the schema the cost directives are read from (a supergraph) has no such type.`);
        }
        continue;
      }
      if (isObjectType(type) || isScalarType(type) || isEnumType(type)) {
        const holders = [source.astNode, ...source.extensionASTNodes, extensionDirectives(source)] as DirectiveHolder[];
        const weight = reader.weight(holders, type.name);
        this.typeWeights.set(type, weight);
        if (weight !== undefined) this.declaredTypeWeights.set(type, weight);
      }
      if (isObjectType(type) || isInterfaceType(type)) {
        const sourceFields: GraphQLFieldMap<unknown, unknown> =
          isObjectType(source) || isInterfaceType(source) ? source.getFields() : {};
        for (const field of Object.values(type.getFields()) as AnyField[]) {
          const coordinate = `${type.name}.${field.name}`;
          const sourceField = sourceFields[field.name];
          explicitWeights.set(field, reader.weight(holdersOf(sourceField), coordinate));
          const listSizes = reader.listSizes(field, holdersOf(sourceField), coordinate);
          if (listSizes.length > 0) {
            explicitListSizes.set(field, listSizes);
          } else {
            const entities = entitiesRule(field, type === queryType);
            if (entities !== undefined) explicitListSizes.set(field, [entities]);
          }
          for (const arg of field.args) {
            const sourceArg = sourceField?.args.find((candidate) => candidate.name === arg.name);
            explicitArgWeights.set(arg, reader.weight(holdersOf(sourceArg), `${coordinate}(${arg.name}:)`));
          }
          if (reading.readsRequiredSelections && sourceField !== undefined) {
            const required = requiredSelection(sourceField.astNode, coordinate, problems);
            if (required !== undefined) this.requiredSelections.set(field, required);
          }
        }
      }
      if (isInputObjectType(type)) {
        const sourceFields = isInputObjectType(source) ? source.getFields() : {};
        for (const field of Object.values(type.getFields())) {
          const weight = reader.weight(holdersOf(sourceFields[field.name]), `${type.name}.${field.name}`);
          this.inputWeights.set(field, weight ?? defaultInputWeight(field.type));
          if (weight !== undefined) this.declaredInputWeights.set(field, weight);
        }
      }
    }
    for (const directive of schema.getDirectives()) {
      if (isSpecifiedDirective(directive)) continue;
      const sourceDirective = annotated.getDirective(directive.name);
      for (const arg of directive.args) {
        const sourceArg = sourceDirective?.args.find((candidate) => candidate.name === arg.name);
        explicitArgWeights.set(arg, reader.weight(holdersOf(sourceArg), `@${directive.name}(${arg.name}:)`));
      }
    }
    if (problems.length > 0) throw new CostSchemaError(problems);

    const inferred: InferredField[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const interfaces = type.getInterfaces();
      for (const field of Object.values(type.getFields()) as AnyField[]) {
        const inherited = interfaces
          .map((iface) => iface.getFields()[field.name] as AnyField | undefined)
          .filter((candidate): candidate is AnyField => candidate !== undefined);
        const weight = explicitWeights.get(field) ?? maxOf(inherited.map((f) => explicitWeights.get(f)));
        const ownListSizes = explicitListSizes.get(field);
        let listSizes = ownListSizes ?? firstOf(inherited.map((f) => explicitListSizes.get(f))) ?? NO_RULES;
        const coordinate = `${type.name}.${field.name}`;
        const inferredRule = listSizes.length === 0 ? inferredListSize(field, coordinate, inferListSizes) : undefined;
        if (inferredRule !== undefined) {
          listSizes = [inferredRule.rule];
          inferred.push({ coordinate, field, listSize: inferredRule.listSize });
        }
        // An inferred rule is the field's own: every model reads it as if written on the field.
        const rule = fieldRule(field, weight ?? defaultFieldWeight(field), listSizes, {
          weight: explicitWeights.get(field),
          listSizes: inferredRule === undefined ? (ownListSizes ?? NO_RULES) : listSizes,
          inferred: inferredRule === undefined ? undefined : inferListSizes,
        });
        this.fieldRules.set(field, rule);
        for (const arg of field.args) {
          const inheritedArgs = inherited.flatMap((f) => f.args.filter((a) => a.name === arg.name));
          const declared = explicitArgWeights.get(arg);
          const argWeight = declared ?? maxOf(inheritedArgs.map((a) => explicitArgWeights.get(a)));
          this.inputWeights.set(arg, argWeight ?? defaultInputWeight(arg.type));
          if (declared !== undefined) this.declaredInputWeights.set(arg, declared);
        }
      }
    }
    for (const directive of schema.getDirectives()) {
      for (const arg of directive.args) {
        this.inputWeights.set(arg, explicitArgWeights.get(arg) ?? defaultInputWeight(arg.type));
      }
    }
    this.inferredFields = inferred;
  }

  /**
   * Weight of one instance of a named output type: its `@cost`, else 1 for object types and 0 for
   * scalars and enums; for an interface or union, the largest weight of its possible types.
   */
  typeWeight(type: GraphQLNamedType): number {
    let weight = this.typeWeights.get(type);
    if (weight === undefined) {
      if (isAbstractType(type)) {
        const weights = this.schema.getPossibleTypes(type).map((possible) => this.typeWeight(possible));
        weight = weights.length === 0 ? 1 : Math.max(...weights);
      } else {
        weight = isCompositeType(type) ? 1 : 0;
      }
      this.typeWeights.set(type, weight);
    }
    return weight;
  }

  /** The `@cost` written on a named type (object, scalar or enum), or undefined without one. */
  declaredTypeWeight(type: GraphQLNamedType): number | undefined {
    return this.declaredTypeWeights.get(type);
  }

  /** The `@cost` written on an argument or input field itself, or undefined without one. */
  declaredInputWeight(value: InputValue): number | undefined {
    return this.declaredInputWeights.get(value);
  }

  /** The selection a supergraph field's `@join__field(requires:)` names (`'apollo'` model only). */
  requiredSelection(field: AnyField): SelectionSetNode | undefined {
    return this.requiredSelections.get(field);
  }

  /** Whether a named type is an object type (cheaper than graphql-js's checked `isObjectType`). */
  isObjectType(type: GraphQLNamedType): type is GraphQLObjectType {
    let known = this.objectTypes.get(type);
    // Stryker disable next-line ConditionalExpression: a memo; asking graphql-js again gives the same answer
    if (known === undefined) {
      known = isObjectType(type);
      this.objectTypes.set(type, known);
    }
    return known;
  }

  /** Weight and list-size rule of a field (meta fields such as `__schema` get the defaults). */
  field(field: AnyField): FieldCostRule {
    let rule = this.fieldRules.get(field);
    if (rule === undefined) {
      rule = fieldRule(field, defaultFieldWeight(field), NO_RULES, {
        weight: undefined,
        listSizes: NO_RULES,
        inferred: undefined,
      });
      this.fieldRules.set(field, rule);
    }
    return rule;
  }

  /**
   * The list size of an introspection field (`__Schema.types`, `__Type.fields`, `__Field.args`, …):
   * the schema's own largest count of what it lists (types, fields of one type, arguments of one
   * field, …), so introspection is priced by the schema's real sizes, an upper bound of its work,
   * instead of `defaultListSize`. Undefined for any other field.
   */
  introspectionSize(field: AnyField): number | undefined {
    this.introspectionSizes ??= introspectionSizesOf(this.schema);
    return this.introspectionSizes.get(field);
  }
  private introspectionSizes: Map<AnyField, number> | undefined;

  /**
   * How many elements introspection can describe in the schema: its types, fields, arguments,
   * input fields, enum values, directives and directive arguments (it bounds the work of pricing
   * an introspection, see `IntrospectionCoster`).
   */
  schemaElements(): number {
    this.elements ??= schemaElementsOf(this.schema);
    return this.elements;
  }
  private elements: number | undefined;

  /** Weight of an argument, directive argument or input field when a value is present for it. */
  inputWeight(value: InputValue): number {
    return this.inputWeights.get(value) ?? defaultInputWeight(value.type);
  }
}

function schemaElementsOf(schema: GraphQLSchema): number {
  let count = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    count += 1;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) count += 1 + field.args.length;
    } else if (isInputObjectType(type)) {
      count += Object.keys(type.getFields()).length;
    } else if (isEnumType(type)) {
      count += type.getValues().length;
    }
  }
  for (const directive of schema.getDirectives()) count += 1 + directive.args.length;
  return count;
}

/** The largest count each introspection list field can answer with in `schema`. */
function introspectionSizesOf(schema: GraphQLSchema): Map<AnyField, number> {
  const types = Object.values(schema.getTypeMap());
  const directives = schema.getDirectives();
  let fields = 0;
  let interfaces = 0;
  let possibleTypes = 0;
  let enumValues = 0;
  let inputFields = 0;
  let fieldArgs = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const typeFields = Object.values(type.getFields());
      fields = Math.max(fields, typeFields.length);
      interfaces = Math.max(interfaces, type.getInterfaces().length);
      for (const field of typeFields) fieldArgs = Math.max(fieldArgs, field.args.length);
    }
    if (isAbstractType(type)) possibleTypes = Math.max(possibleTypes, schema.getPossibleTypes(type).length);
    if (isEnumType(type)) enumValues = Math.max(enumValues, type.getValues().length);
    if (isInputObjectType(type)) inputFields = Math.max(inputFields, Object.keys(type.getFields()).length);
  }
  let directiveArgs = 0;
  let locations = 0;
  for (const directive of directives) {
    directiveArgs = Math.max(directiveArgs, directive.args.length);
    locations = Math.max(locations, directive.locations.length);
  }
  const sizes = new Map<AnyField, number>();
  const set = (typeName: string, fieldName: string, size: number): void => {
    const type = schema.getType(typeName);
    const field = isObjectType(type) ? (type.getFields()[fieldName] as AnyField | undefined) : undefined;
    if (field !== undefined) sizes.set(field, size);
  };
  set('__Schema', 'types', types.length);
  set('__Schema', 'directives', directives.length);
  set('__Type', 'fields', fields);
  set('__Type', 'interfaces', interfaces);
  set('__Type', 'possibleTypes', possibleTypes);
  set('__Type', 'enumValues', enumValues);
  set('__Type', 'inputFields', inputFields);
  set('__Field', 'args', fieldArgs);
  set('__Directive', 'args', directiveArgs);
  set('__Directive', 'locations', locations);
  return sizes;
}

function fieldRule(
  field: AnyField,
  weight: number,
  listSizes: readonly ListSizeRule[],
  own: {
    readonly weight: number | undefined;
    readonly listSizes: readonly ListSizeRule[];
    readonly inferred: ListSizeInference | undefined;
  },
): FieldCostRule {
  let listDepth = 0;
  let type = getNullableType(field.type);
  while (isListType(type)) {
    listDepth += 1;
    type = getNullableType(type.ofType);
  }
  const namedType = getNamedType(field.type);
  return {
    weight,
    listSizes,
    ownWeight: own.weight,
    ownListSizes: own.listSizes,
    namedType,
    listDepth,
    returnsLeaf: isLeafType(namedType),
    objectType: isObjectType(namedType) ? namedType : undefined,
    inferredListSize: own.inferred,
  };
}

/** Where a schema element's directives are written: its SDL definition, then its `extensions`. */
function holdersOf(element: SchemaElement | undefined): (DirectiveHolder | null | undefined)[] {
  return [element?.astNode, extensionDirectives(element)];
}

/** The rule `inference` gives a field that has none (see `relayListSize`), checked like a written one. */
function inferredListSize(
  field: AnyField,
  coordinate: string,
  inference: ListSizeInference | undefined,
): { readonly rule: ListSizeRule; readonly listSize: InferredListSize } | undefined {
  const listSize = inference === undefined ? undefined : INFERENCES[inference](field);
  if (listSize === undefined) return undefined;
  const rule = listSizeRule(field, { ...listSize }, coordinate, []);
  return rule === undefined ? undefined : { rule, listSize };
}

function defaultFieldWeight(field: AnyField): number {
  return isCompositeType(getNamedType(field.type)) ? 1 : 0;
}

function defaultInputWeight(type: GraphQLInputType): number {
  return isInputObjectType(getNamedType(type)) ? 1 : 0;
}

function maxOf(values: readonly (number | undefined)[]): number | undefined {
  const present = values.filter((value): value is number => value !== undefined);
  return present.length === 0 ? undefined : Math.max(...present);
}

function firstOf<T>(values: readonly (T | undefined)[]): T | undefined {
  return values.find((value) => value !== undefined);
}
