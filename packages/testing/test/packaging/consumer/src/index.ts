// Every package's root and the subpaths embedders reach for, in a project that only installed the
// tarballs: it type-checks against their .d.ts and runs on Node against their ESM build.
import { Kassa, TestAcquirer } from "@kassa/adapters"
import * as Database from "@kassa/adapters/Database"
import { InvoiceService } from "@kassa/core"
import { Acquirer } from "@kassa/core/ports/Acquirer"
import { Http } from "@kassa/http"
import { KassaApi } from "@kassa/http/api"
import type * as Layer from "effect/Layer"

const acquirer: Layer.Layer<Acquirer> = TestAcquirer.layer
const database: Database.DatabaseConfig = { _tag: "sqlite", filename: ":memory:" }
const kassa = Kassa.layer({ database, dataDir: ".", acquirer })

console.log(JSON.stringify({
  core: InvoiceService.InvoiceService.key,
  adapters: typeof kassa,
  http: typeof Http.serve,
  api: typeof KassaApi.KassaApi
}))
