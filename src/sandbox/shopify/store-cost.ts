import {
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type GraphQLType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * A query's cost as Shopify publishes its rules (shopify.dev, "GraphQL Admin API rate limits"): a scalar or enum
 * costs 0, an object 1, a connection 2 plus `first` (or `last`) times one node, a list with `first` that many
 * elements, a mutation 10. The requested cost counts `first`; the actual cost what the answer holds.
 */

const isList = (t: GraphQLType): boolean => (isNonNullType(t) ? isList(t.ofType) : isListType(t));

function argNumber(node: FieldNode, name: string, vars: Record<string, unknown>): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  const v: ValueNode = arg.value;
  if (v.kind === Kind.INT) return Number(v.value);
  if (v.kind === Kind.VARIABLE) {
    const n = vars[v.name.value];
    return typeof n === 'number' ? n : undefined;
  }
  return undefined;
}

interface Walk {
  schema: GraphQLSchema;
  doc: DocumentNode;
  vars: Record<string, unknown>;
}

/** The fields a selection set selects, fragments spread. */
function fieldsOf(w: Walk, set: SelectionSetNode): FieldNode[] {
  const out: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) out.push(s);
    else if (s.kind === Kind.INLINE_FRAGMENT) out.push(...fieldsOf(w, s.selectionSet));
    else {
      const frag = w.doc.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === s.name.value);
      if (frag && frag.kind === Kind.FRAGMENT_DEFINITION) out.push(...fieldsOf(w, frag.selectionSet));
    }
  }
  return out;
}

/** Cost of an object's selection: each field it selects. `data`: the object as answered (actual), or none (requested). */
function objectCost(w: Walk, type: GraphQLObjectType, set: SelectionSetNode | undefined, data: unknown, actual: boolean): number {
  if (!set) return 0;
  const obj = (data ?? {}) as Record<string, unknown>;
  let cost = 0;
  for (const f of fieldsOf(w, set)) {
    const def = type.getFields()[f.name.value];
    if (def) cost += fieldCost(w, def, f, obj[f.alias?.value ?? f.name.value], actual);
  }
  return cost;
}

function fieldCost(w: Walk, def: GraphQLField<unknown, unknown>, node: FieldNode, value: unknown, actual: boolean): number {
  const named = getNamedType(def.type);
  if (isLeafType(named) || !isObjectType(named)) return 0;
  if (actual && (value === null || value === undefined)) return 0;
  if (named.name.endsWith('Connection')) return connectionCost(w, named, node, value, actual);
  const first = argNumber(node, 'first', w.vars) ?? argNumber(node, 'last', w.vars);
  if (isList(def.type)) {
    const items = actual ? ((value as unknown[]) ?? []) : Array.from({ length: first ?? 1 });
    return items.reduce<number>((sum, item) => sum + 1 + objectCost(w, named, node.selectionSet, item, actual), 0);
  }
  return 1 + objectCost(w, named, node.selectionSet, value, actual);
}

/** 2 for the connection, and each node (`nodes`, `edges.node`): `first` of them asked, those answered actually. */
function connectionCost(w: Walk, type: GraphQLObjectType, node: FieldNode, value: unknown, actual: boolean): number {
  const first = argNumber(node, 'first', w.vars) ?? argNumber(node, 'last', w.vars) ?? 0;
  const conn = (value ?? {}) as { nodes?: unknown[]; edges?: Array<{ node?: unknown }> };
  let per = 0;
  let answered = 0;
  for (const f of fieldsOf(w, node.selectionSet!)) {
    const name = f.name.value;
    if (name !== 'nodes' && name !== 'edges') continue;
    const edgeType = getNamedType(type.getFields()[name]!.type) as GraphQLObjectType;
    const nodeType = name === 'nodes' ? edgeType : (getNamedType(edgeType.getFields().node!.type) as GraphQLObjectType);
    const nodeSet = name === 'nodes' ? f.selectionSet : fieldsOf(w, f.selectionSet!).find((x) => x.name.value === 'node')?.selectionSet;
    if (!actual) {
      per = Math.max(per, 1 + objectCost(w, nodeType, nodeSet, undefined, false));
      continue;
    }
    const items = name === 'nodes' ? (conn.nodes ?? []) : (conn.edges ?? []).map((e) => e.node);
    answered = Math.max(
      answered,
      items.reduce<number>((sum, item) => sum + 1 + objectCost(w, nodeType, nodeSet, item, true), 0),
    );
  }
  return 2 + (actual ? answered : first * per);
}

/** The requested and (with `data`) actual cost of an operation. */
export function queryCost(
  schema: GraphQLSchema,
  doc: DocumentNode,
  op: OperationDefinitionNode,
  vars: Record<string, unknown>,
  data?: unknown,
): number {
  const w: Walk = { schema, doc, vars };
  const root = op.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
  const actual = data !== undefined;
  let cost = 0;
  const obj = (data ?? {}) as Record<string, unknown>;
  for (const f of fieldsOf(w, op.selectionSet)) {
    const def = root.getFields()[f.name.value];
    if (!def) continue;
    cost += op.operation === 'mutation' ? 10 : fieldCost(w, def, f, obj[f.alias?.value ?? f.name.value], actual);
  }
  return cost;
}
