/**
 * A payment's background work and the durable timers that run it, registered here: the
 * recovery timer (`AdvanceTimer`), the hold's end (`HoldTimer`) and the challenge's timeout
 * (`InteractionTimer`). A new timer is one file beside these and one line below.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Apply } from "../ApplyCommand.js"
import type { PaymentContext } from "../PaymentContext.js"
import * as Advance from "./Advance.js"
import * as AdvanceTimer from "./AdvanceTimer.js"
import * as HoldTimer from "./HoldTimer.js"
import * as InteractionTimer from "./InteractionTimer.js"

/** The process manager, with its timers registered. @since 0.1.0 @category constructors */
export const make = (ctx: PaymentContext, apply: Apply) =>
  Effect.gen(function*() {
    const processing = Advance.make(ctx, apply)
    yield* ctx.timers.register(AdvanceTimer.KIND, AdvanceTimer.handler(ctx, processing.kick))
    yield* ctx.timers.register(HoldTimer.KIND, HoldTimer.handler(ctx, apply))
    yield* ctx.timers.register(InteractionTimer.KIND, InteractionTimer.handler(apply))
    return processing
  })
