/**
 * A repository on SQL as its port's tag and what builds it, so that storage can build every
 * repository in one layer (`SqlStorage.layer`): each layer of a merge is one more for Effect to
 * build at every start (a memo entry, a scope and a fiber each).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export interface Repository<I, S, E, R> {
  readonly tag: Context.Tag<I, S>
  readonly make: Effect.Effect<S, E, R>
}

/** `make` typed by the port of `tag`, as `Layer.effect(tag, make)` would type it. */
export const make = <I, S, E, R>(tag: Context.Tag<I, S>, make: Effect.Effect<S, E, R>): Repository<I, S, E, R> => ({
  tag,
  make
})

/** The repository alone, as a layer. */
export const layer = <I, S, E, R>(repository: Repository<I, S, E, R>): Layer.Layer<I, E, R> =>
  Layer.effect(repository.tag, repository.make)

type Any = Repository<any, any, any, any>
type Id<X> = X extends Repository<infer I, any, any, any> ? I : never
type Error<X> = X extends Repository<any, any, infer E, any> ? E : never
type Needs<X> = X extends Repository<any, any, any, infer R> ? R : never

/** Every repository of `repositories` built in turn, in one layer. */
export const layerAll = <const Repositories extends ReadonlyArray<Any>>(
  repositories: Repositories
): Layer.Layer<Id<Repositories[number]>, Error<Repositories[number]>, Needs<Repositories[number]>> =>
  Layer.effectContext(
    Effect.reduce(
      repositories,
      Context.empty() as Context.Context<Id<Repositories[number]>>,
      (built, repository) => Effect.map(repository.make, (service) => Context.add(built, repository.tag, service))
    )
  )
