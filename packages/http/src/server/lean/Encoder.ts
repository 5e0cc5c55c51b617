/**
 * An answer's encoder compiled from its schema, which does not check again what the domain
 * produced: refinements are not run, and a union's member is chosen by its discriminating
 * literal where it has one. Otherwise it encodes as `Schema.encode` does (the same fields in the
 * same order, excess ones left out, the same transformations), so the bytes answered are the
 * same. A part of the schema it does not compile is encoded by `Schema` itself.
 *
 * What is compiled is kept, per schema node, for the process, as `Schema` keeps its own: the
 * startup snapshot's build compiles the contract's answers (`Warmup.compileEncoders`), so a start
 * finds them compiled.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** @since 0.1.0 @category models */
export type Encode = (value: unknown) => unknown

const identity: Encode = (value) => value

const slow = (ast: AST.AST): Encode => ParseResult.encodeUnknownSync(Schema.make(ast))

const fail = (ast: AST.AST, value: unknown): never => {
  throw new ParseResult.ParseError({ issue: new ParseResult.Type(ast, value) })
}

/**
 * The literal values a member's property may hold when its type is a literal or a union of
 * literals; `undefined` otherwise.
 */
const literalsOf = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  if (ast._tag === "Literal") return [ast.literal]
  if (ast._tag === "Union") {
    const out: Array<AST.LiteralValue> = []
    for (const member of ast.types) {
      if (member._tag !== "Literal") return undefined
      out.push(member.literal)
    }
    return out
  }
  return undefined
}

/** The struct a union member encodes from (its type side), if it is one. */
const structOf = (ast: AST.AST): AST.TypeLiteral | undefined => {
  const type = AST.typeAST(ast)
  return type._tag === "TypeLiteral" ? type : undefined
}

/**
 * A required property every struct member of the union has, holding literals no two members
 * share: the member a value belongs to is told by that property alone.
 */
const discriminator = (structs: ReadonlyArray<AST.TypeLiteral>): string | undefined => {
  if (structs.length < 2) return undefined
  const [first, ...rest] = structs
  for (const candidate of first!.propertySignatures) {
    if (typeof candidate.name !== "string" || candidate.isOptional) continue
    const seen = new Set<AST.LiteralValue>()
    let unique = true
    for (const struct of [first!, ...rest]) {
      const ps = struct.propertySignatures.find((p) => p.name === candidate.name && !p.isOptional)
      const literals = ps === undefined ? undefined : literalsOf(ps.type)
      if (literals === undefined || literals.some((l) => seen.has(l))) {
        unique = false
        break
      }
      for (const l of literals) seen.add(l)
    }
    if (unique) return candidate.name
  }
  return undefined
}

/** Whether `value` belongs to the union's `member`, as cheaply as the member allows. */
const guardOf = (member: AST.AST, key: string | undefined): (value: unknown) => boolean => {
  switch (member._tag) {
    case "UndefinedKeyword":
      return Predicate.isUndefined
    case "Literal": {
      const literal = member.literal
      return (value) => value === literal
    }
    case "StringKeyword":
      return Predicate.isString
    case "NumberKeyword":
      return Predicate.isNumber
    case "BooleanKeyword":
      return Predicate.isBoolean
  }
  const struct = structOf(member)
  const ps = key === undefined || struct === undefined ? undefined : struct.propertySignatures.find((p) => p.name === key)
  if (ps !== undefined) {
    const literals = new Set(literalsOf(ps.type))
    return (value) => Predicate.isRecord(value) && literals.has(value[key!] as AST.LiteralValue)
  }
  return ParseResult.is(Schema.make(AST.typeAST(member)))
}

const compileUnion = (ast: AST.Union, go: (ast: AST.AST) => Encode): Encode => {
  const encoders = ast.types.map(go)
  if (encoders.every((e) => e === identity)) return identity
  const defined = ast.types.findIndex((member) => member._tag !== "UndefinedKeyword")
  if (ast.types.length === 2 && defined !== -1 && ast.types[1 - defined]!._tag === "UndefinedKeyword") {
    // an optional field's `X | undefined`
    const encode = encoders[defined]!
    return (value) => (value === undefined ? value : encode(value))
  }
  const structs = ast.types.map(structOf).filter(Predicate.isNotUndefined)
  const key = discriminator(structs)
  const guards = ast.types.map((member) => guardOf(member, key))
  return (value) => {
    for (let i = 0; i < guards.length; i++) {
      if (guards[i]!(value)) return encoders[i]!(value)
    }
    return fail(ast, value)
  }
}

const compileStruct = (ast: AST.TypeLiteral, go: (ast: AST.AST) => Encode): Encode => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return identity
  if (ast.indexSignatures.length > 1) return slow(ast)
  const index = ast.indexSignatures[0]
  if (index !== undefined && index.parameter._tag !== "StringKeyword") return slow(ast)
  const names: Array<PropertyKey> = []
  const optional: Array<boolean> = []
  const encoders: Array<Encode> = []
  for (const ps of ast.propertySignatures) {
    names.push(ps.name)
    optional.push(ps.isOptional)
    encoders.push(go(ps.type))
  }
  const expected = new Set(names)
  const indexValue = index === undefined ? undefined : go(index.type)
  return (value) => {
    const input = value as Record<PropertyKey, unknown>
    const out: Record<PropertyKey, unknown> = {}
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!
      if (optional[i] && !Object.prototype.hasOwnProperty.call(input, name)) continue
      out[name] = encoders[i]!(input[name])
    }
    if (indexValue !== undefined) {
      for (const key of Object.keys(input)) {
        if (!expected.has(key)) out[key] = indexValue(input[key])
      }
    }
    return out
  }
}

const compileTuple = (ast: AST.TupleType, go: (ast: AST.AST) => Encode): Encode => {
  if (ast.rest.length > 1) return slow(ast)
  const elements = ast.elements.map((e) => go(e.type))
  const rest = ast.rest.length === 0 ? undefined : go(ast.rest[0]!.type)
  if (elements.length === 0 && rest === identity) return identity
  return (value) => {
    const input = value as ReadonlyArray<unknown>
    const out: Array<unknown> = []
    const fixed = Math.min(elements.length, input.length)
    for (let i = 0; i < fixed; i++) out.push(elements[i]!(input[i]))
    if (rest !== undefined) for (let i = fixed; i < input.length; i++) out.push(rest(input[i]))
    return out
  }
}

const compileTransformation = (ast: AST.Transformation, go: (ast: AST.AST) => Encode): Encode => {
  const transformation = ast.transformation
  if (transformation._tag === "TypeLiteralTransformation") return slow(ast)
  const to = go(ast.to)
  const from = go(ast.from)
  switch (transformation._tag) {
    case "ComposeTransformation":
      return (value) => from(to(value))
    case "FinalTransformation": {
      // (a transformation that answers an effect, not an `Either`, is left to `Schema`)
      const whole = slow(ast)
      return (value) => {
        const result = transformation.encode(to(value), AST.defaultParseOption, ast, value)
        if (!Either.isEither(result)) return whole(value)
        if (result._tag === "Left") throw new ParseResult.ParseError({ issue: result.left as ParseResult.ParseIssue })
        return from(result.right)
      }
    }
  }
}

/** Every node's encoder compiled so far: a node never changes, so neither does its encoder. */
const memo = new WeakMap<AST.AST, Encode>()

const go = (ast: AST.AST): Encode => {
  const known = memo.get(ast)
  if (known !== undefined) return known
  let encode: Encode
  switch (ast._tag) {
    case "Literal":
    case "UniqueSymbol":
    case "UndefinedKeyword":
    case "VoidKeyword":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "SymbolKeyword":
    case "ObjectKeyword":
    case "Enums":
    case "TemplateLiteral":
      encode = identity
      break
    case "Declaration":
      encode = ast.typeParameters.length === 0 ? identity : slow(ast)
      break
    case "Refinement":
      encode = go(ast.from)
      break
    case "Transformation":
      encode = compileTransformation(ast, go)
      break
    case "TypeLiteral":
      encode = compileStruct(ast, go)
      break
    case "TupleType":
      encode = compileTuple(ast, go)
      break
    case "Union":
      encode = compileUnion(ast, go)
      break
    case "Suspend": {
      let inner: Encode | undefined
      encode = (value) => (inner ??= go(ast.f()))(value)
      break
    }
    default:
      encode = slow(ast)
  }
  memo.set(ast, encode)
  return encode
}

/**
 * The encoder of `schema`: `Schema.encodeSync(schema)` without its checks. A value the domain
 * could not have produced (one that matches no member of a union, a bad date) throws.
 *
 * @since 0.1.0 @category constructors
 */
export const make = <A, I>(schema: Schema.Schema<A, I, never>): (value: A) => I => go(schema.ast) as (value: A) => I
