/** The startup snapshot of a bundle: `server.js` → `server.blob`. */
export declare const snapshotOf: (bundle: string) => string
/** The file that says which Node built a snapshot. */
export declare const stampOf: (blob: string) => string
/** What a snapshot must have been built by to start on this process's Node. */
export declare const nodeStamp: () => { readonly node: string; readonly arch: string; readonly execPath: string }
/** Whether `blob` exists, was built by this Node and, given `script`, is newer than it. */
export declare const snapshotFits: (blob: string, script?: string) => boolean
/** The Node flags a script's first line gives (`#!/usr/bin/env -S node <flags>`). */
export declare const shebangFlags: (script: string) => Array<string>
/** The arguments of `node` that start the server of `bundle`: its snapshot when it fits, else the bundle. */
export declare const serverArgs: (bundle: string, nodeArgs?: ReadonlyArray<string>) => Array<string>
