/**
 * The entry of the server's startup snapshot (`dist/server.blob`, built by `scripts/bundle.mjs`):
 * evaluating every module of the server is most of a cold start, so the snapshot holds the heap
 * after it, and a start from it only runs the server.
 *
 * @since 0.1.0
 */
import { startupSnapshot } from "node:v8"
import { KassaApi } from "../api/KassaApi.js"
import { run } from "./Start.js"
import * as Warmup from "./Warmup.js"

// The builder runs without `Error.stackTraceLimit`: Effect's modules, which save and restore it
// while loading, leave it `undefined`, and every error of the server would have no stack.
// Removed, it is installed again when the snapshot starts.
if (Error.stackTraceLimit === undefined) delete (Error as { stackTraceLimit?: number }).stackTraceLimit

Warmup.compileParsers(KassaApi)
Warmup.compileEncoders(KassaApi)
void Warmup.runLayers()
Warmup.readSettings()

startupSnapshot.setDeserializeMainFunction(run)
