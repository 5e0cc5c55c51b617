import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"

/** Runs `effect` with a transformer that records the text of each statement it sends (BEGIN and COMMIT are none). */
export const withStatementTexts = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const texts: Array<string> = []
    return effect.pipe(
      Statement.withTransformer((statement) => {
        texts.push(statement.compile()[0])
        return Effect.succeed(statement)
      }),
      Effect.map((a) => [a, texts] as const)
    )
  })
