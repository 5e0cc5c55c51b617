/** Supervisors that count what the fibers under them do (`OpSupervision` on, for the steps). */
import * as Effect from "effect/Effect"
import * as Supervisor from "effect/Supervisor"

/** Counts the run loop's steps of the fibers under it (with the `OpSupervision` flag on). */
export class Steps extends Supervisor.AbstractSupervisor<number> {
  steps = 0
  get value() {
    return Effect.sync(() => this.steps)
  }
  override onEffect() {
    this.steps++
  }
}

/**
 * Counts the steps that change the runtime flags (with the `OpSupervision` flag on): an
 * uninterruptible region's start and its `restore`s. (Reads the step's `_op`, Effect's own tag of
 * its primitives, which its public types do not show.)
 */
export class FlagUpdates extends Supervisor.AbstractSupervisor<number> {
  updates = 0
  get value() {
    return Effect.sync(() => this.updates)
  }
  override onEffect(_fiber: unknown, effect: unknown) {
    if ((effect as { readonly _op?: unknown })._op === "UpdateRuntimeFlags") this.updates++
  }
}

/** Counts the fibers started under it. */
export class Forks extends Supervisor.AbstractSupervisor<number> {
  started = 0
  get value() {
    return Effect.sync(() => this.started)
  }
  override onStart() {
    this.started++
  }
}
