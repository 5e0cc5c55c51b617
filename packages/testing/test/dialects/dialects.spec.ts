import { Dialects } from "@kassa/testing"
import { it } from "vitest"

it("prints the dialects", () => {
  console.log(`DIALECTS ${JSON.stringify(Dialects.dialects())}`)
})
