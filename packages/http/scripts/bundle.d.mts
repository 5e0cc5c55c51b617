/** What the bundle is built from. */
export declare const inputs: () => Array<string>
/** The newest modification time (ms) of the files under `paths`; 0 when none exists. */
export declare const newestMtime: (paths: ReadonlyArray<string>) => number
/** Whether `output` is missing or older than one of `sources`. */
export declare const isStale: (output: string, sources: ReadonlyArray<string>) => boolean
/** Builds the startup snapshot of `script` into `blob`; answers whether it was built. */
export declare const buildSnapshot: (script?: string, blob?: string) => boolean
