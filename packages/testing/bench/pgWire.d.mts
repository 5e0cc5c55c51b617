import type * as net from "node:net"

export declare const frontendReader: (trip: (texts: ReadonlyArray<string>) => void) => (chunk: Buffer) => void

export declare const wireProxy: (
  target: { readonly host: string; readonly port: number },
  trip: (texts: ReadonlyArray<string>, connection: number) => void
) => net.Server
