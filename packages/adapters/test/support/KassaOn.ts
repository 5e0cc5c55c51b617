import { Kassa } from "@kassa/adapters"
import { type Dialects, TestDatabase } from "@kassa/testing"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Kassa's layer on a fresh database of `dialect`, dropped with the layer. */
export const kassaOn = (dialect: Dialects.Dialect) =>
  Layer.unwrapScoped(Effect.map(TestDatabase.acquire(dialect), (place) => Kassa.layer(place)))
